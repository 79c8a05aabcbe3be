package pipeline

import (
	"fmt"
	"testing"
	"time"
)

// The sliding, session and snapshot windows follow Azure Stream
// Analytics' windowing functions:
// learn.microsoft.com/stream-analytics-query/sliding-window-azure-stream-analytics,
// .../session-window-azure-stream-analytics and
// .../snapshot-window-azure-stream-analytics.

// tev is an event at t0+sec seconds (field ts), record timestamp the same.
func tev(sec int, off int64, fields string) Event {
	at := t0.Add(time.Duration(sec) * time.Second)
	doc := fmt.Sprintf(`{"ts":%q,%s}`, at.Format(time.RFC3339), fields)
	return Event{Row: row(doc), Timestamp: at, Offset: off}
}

// win is the JSON of a window row's fields, from t0+start to t0+end seconds.
func win(start, end int) string {
	s := t0.Add(time.Duration(start) * time.Second).Format(time.RFC3339)
	e := t0.Add(time.Duration(end) * time.Second).Format(time.RFC3339)
	return fmt.Sprintf(`"_window_start":%q,`, s) + "%s" + fmt.Sprintf(`,"window_end":%q,"window_start":%q`, e, s)
}

func wantRow(start, end int, middle string) string {
	return "{" + fmt.Sprintf(win(start, end), middle) + "}"
}

func feedOneByOne(t *testing.T, p *Pipeline, feed []Event) []string {
	t.Helper()
	var got []string
	for _, ev := range feed {
		got = append(got, texts(p.Process([]Event{ev}))...)
	}
	return append(got, texts(p.Advance(t0.Add(time.Hour)))...)
}

func TestSnapshotWindow(t *testing.T) {
	p := mustPipeline(t, `{"type":"GroupBy","keys":["k"],"aggregates":[{"fn":"sum","field":"v","as":"s"}],
		"window":{"kind":"snapshot","on":"ts"}}`)
	feed := []Event{tev(0, 0, `"k":"a","v":1`), tev(0, 1, `"k":"b","v":2`), tev(0, 2, `"k":"a","v":3`),
		tev(5, 3, `"k":"a","v":4`), tev(7, 4, `"k":"a","v":5`)}
	got := feedOneByOne(t, p, feed)
	want := []string{
		wantRow(0, 0, `"k":"a","s":4`), wantRow(0, 0, `"k":"b","s":2`),
		wantRow(5, 5, `"k":"a","s":4`), wantRow(7, 7, `"k":"a","s":5`),
	}
	if !equalTexts(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

func TestSlidingWindow(t *testing.T) {
	p := mustPipeline(t, `{"type":"GroupBy","aggregates":[{"fn":"count","as":"n"},{"fn":"sum","field":"v","as":"s"}],
		"window":{"kind":"sliding","duration":"10s","on":"ts"}}`)
	feed := []Event{tev(0, 0, `"v":1`), tev(4, 1, `"v":2`), tev(12, 2, `"v":3`)}
	// Entries at 0, 4, 12; exits at 10, 14, 22 (empty: no row).
	want := []string{
		wantRow(-10, 0, `"n":1,"s":1`), wantRow(-6, 4, `"n":2,"s":3`), wantRow(0, 10, `"n":1,"s":2`),
		wantRow(2, 12, `"n":2,"s":5`), wantRow(4, 14, `"n":1,"s":3`),
	}
	if got := feedOneByOne(t, p, feed); !equalTexts(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	// An event before the horizon is late: its entry instant was emitted.
	p = mustPipeline(t, `{"type":"GroupBy","aggregates":[{"fn":"count","as":"n"}],"window":{"kind":"sliding","duration":"10s","on":"ts"}}`)
	p.Process([]Event{tev(5, 0, `"v":1`), tev(3, 1, `"v":1`)})
	if s := p.Stats(); s.Late != 1 {
		t.Errorf("late %d, want 1", s.Late)
	}
}

func TestSessionWindow(t *testing.T) {
	p := mustPipeline(t, `{"type":"GroupBy","aggregates":[{"fn":"count","as":"n"},{"fn":"sum","field":"v","as":"s"}],
		"window":{"kind":"session","timeout":"5s","maxDuration":"20s","partitionBy":"k","on":"ts"}}`)
	var feed []Event
	for i, at := range []struct {
		sec int
		k   string
	}{{0, "a"}, {2, "b"}, {3, "a"}, {6, "b"}, {7, "a"}, {14, "a"}, {18, "a"}, {22, "a"}, {26, "a"},
		{30, "a"}, {34, "a"}, {38, "a"}, {41, "a"}} {
		feed = append(feed, tev(at.sec, int64(i), fmt.Sprintf(`"k":%q,"v":%d`, at.k, at.sec)))
	}
	// b: [2, 6+5). a: [0, 7+5); from 14 cut at 40 (the first multiple of
	// 20s at least 20s after 14); from 41 until 41+5.
	want := []string{
		wantRow(2, 11, `"n":2,"s":8`), wantRow(0, 12, `"n":3,"s":10`),
		wantRow(14, 40, `"n":7,"s":182`), wantRow(41, 46, `"n":1,"s":41`),
	}
	if got := feedOneByOne(t, p, feed); !equalTexts(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	// Rows come out when the session closes: b's and a's first at 14.
	p2 := mustPipeline(t, `{"type":"GroupBy","aggregates":[{"fn":"count","as":"n"}],
		"window":{"kind":"session","timeout":"5s","maxDuration":"20s","partitionBy":"k","on":"ts"}}`)
	if out := p2.Process(feed[:5]); len(out) != 0 {
		t.Fatalf("emitted before the timeout: %v", texts(out))
	}
	if out := p2.Process(feed[5:6]); len(out) != 2 {
		t.Fatalf("at 14: %v, want both first sessions", texts(out))
	}
}
