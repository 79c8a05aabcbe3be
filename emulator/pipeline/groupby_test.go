package pipeline

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// at renders an event-time field value minutes:seconds after t0.
func at(min, sec int) string {
	return t0.Add(time.Duration(min)*time.Minute + time.Duration(sec)*time.Second).Format(time.RFC3339)
}

func TestGroupByAggregates(t *testing.T) {
	p := mustPipeline(t, `[{"type":"GroupBy","keys":["k"],"aggregates":[
		{"fn":"count","as":"rows"},{"fn":"count","field":"v","as":"values"},
		{"fn":"sum","field":"v"},{"fn":"min","field":"v"},{"fn":"max","field":"v"},{"fn":"avg","field":"v"},
		{"fn":"sum","field":"i"},{"fn":"min","field":"i"},{"fn":"max","field":"i"},{"fn":"avg","field":"i"}],
		"window":{"kind":"tumbling","duration":"1m","on":"ts"}}]`)
	var docs []string
	for _, d := range []string{
		`"k":"ints","v":3,"i":9223372036854775807`,
		`"k":"ints","v":-1,"i":1`,
		`"k":"ints","v":"7","i":2`, // "7" is a string: skipped, counted
		`"k":"ints","v":null`,
		`"k":"ints"`,
		`"k":"mixed","v":2,"i":1`,
		`"k":"mixed","v":0.5,"i":2`,
		`"k":"mixed","v":1e1,"i":3`,
		`"k":"none","v":"x"`,
		`"k":"none","v":true`,
	} {
		docs = append(docs, fmt.Sprintf(`{"ts":%q,%s}`, at(0, 1), d))
	}
	docs = append(docs, fmt.Sprintf(`{"ts":%q,"k":"next"}`, at(1, 0)))
	out := texts(p.Process(events(docs...)))
	want := []string{
		`{"_window_start":"2026-01-01T00:00:00Z","avg_i":3.0744573456182584e+18,"avg_v":1.0,"k":"ints","max_i":9223372036854775807,"max_v":3,"min_i":1,"min_v":-1,"rows":5,"sum_i":9.223372036854776e+18,"sum_v":2,"values":3,"window_end":"2026-01-01T00:01:00Z","window_start":"2026-01-01T00:00:00Z"}`,
		`{"_window_start":"2026-01-01T00:00:00Z","avg_i":2.0,"avg_v":4.166666666666667,"k":"mixed","max_i":3,"max_v":10.0,"min_i":1,"min_v":0.5,"rows":3,"sum_i":6,"sum_v":12.5,"values":3,"window_end":"2026-01-01T00:01:00Z","window_start":"2026-01-01T00:00:00Z"}`,
		`{"_window_start":"2026-01-01T00:00:00Z","avg_i":null,"avg_v":null,"k":"none","max_i":null,"max_v":null,"min_i":null,"min_v":null,"rows":2,"sum_i":null,"sum_v":null,"values":2,"window_end":"2026-01-01T00:01:00Z","window_start":"2026-01-01T00:00:00Z"}`,
	}
	if !equalTexts(out, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(out, "\n"), strings.Join(want, "\n"))
	}
	// "7", "x" and true are non-numeric (once per row though two aggregates read v).
	if s := p.Stats(); s.NonNumeric != 3 || s.WindowsEmitted != 3 {
		t.Fatalf("stats %+v", s)
	}
}

func TestGroupByKeys(t *testing.T) {
	p := mustPipeline(t, `[{"type":"GroupBy","keys":["k","dev.id"],"aggregates":[{"fn":"count","as":"n"}],
		"window":{"kind":"tumbling","duration":"1m","on":"ts"}}]`)
	out := texts(p.Process(events(
		fmt.Sprintf(`{"ts":%q,"k":1,"dev":{"id":"a"}}`, at(0, 1)),
		fmt.Sprintf(`{"ts":%q,"k":1.0,"dev":{"id":"a"}}`, at(0, 2)), // 1.0 groups with 1
		fmt.Sprintf(`{"ts":%q,"k":"1","dev":{"id":"a"}}`, at(0, 3)), // the string "1" does not
		fmt.Sprintf(`{"ts":%q,"dev":{"id":"a"}}`, at(0, 4)),         // missing key: the null group
		fmt.Sprintf(`{"ts":%q,"k":null,"dev":{}}`, at(0, 5)),
		fmt.Sprintf(`{"ts":%q}`, at(2, 0)),
	)))
	want := []string{
		`{"_window_start":"2026-01-01T00:00:00Z","dev.id":"a","k":1,"n":2,"window_end":"2026-01-01T00:01:00Z","window_start":"2026-01-01T00:00:00Z"}`,
		`{"_window_start":"2026-01-01T00:00:00Z","dev.id":null,"k":null,"n":1,"window_end":"2026-01-01T00:01:00Z","window_start":"2026-01-01T00:00:00Z"}`,
		`{"_window_start":"2026-01-01T00:00:00Z","dev.id":"a","k":null,"n":1,"window_end":"2026-01-01T00:01:00Z","window_start":"2026-01-01T00:00:00Z"}`,
		`{"_window_start":"2026-01-01T00:00:00Z","dev.id":"a","k":"1","n":1,"window_end":"2026-01-01T00:01:00Z","window_start":"2026-01-01T00:00:00Z"}`,
	}
	if !equalTexts(out, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(out, "\n"), strings.Join(want, "\n"))
	}
}

// windowCounts summarises GroupBy output as "start-end key=n" lines.
func windowCounts(rs []rows.Row, key string) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s-%s %v=%v", clock(r["window_start"]), clock(r["window_end"]), r[key], r["n"]))
	}
	return out
}

func clock(v any) string {
	s, _ := v.(string)
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Sprint(v)
	}
	return tm.Sub(t0).String()
}

func TestTumblingClosesOnWatermark(t *testing.T) {
	p := mustPipeline(t, `[{"type":"GroupBy","keys":["k"],"aggregates":[{"fn":"count","as":"n"}],
		"window":{"kind":"tumbling","duration":"1m","on":"ts"}}]`)
	// One event per call with increasing offsets.
	var off int64
	feed := func(ts, k string) []string {
		ev := Event{Row: row(fmt.Sprintf(`{"ts":%q,"k":%q}`, ts, k)), Offset: off}
		off++
		return windowCounts(p.Process([]Event{ev}), "k")
	}
	if got := feed(at(0, 10), "a"); got != nil {
		t.Fatalf("emitted early: %v", got)
	}
	feed(at(0, 50), "b")
	feed(at(0, 20), "a") // out of order but the window is open
	if got := feed(at(0, 59), "a"); got != nil {
		t.Fatalf("emitted early: %v", got)
	}
	got := feed(at(1, 0), "a") // watermark reaches the end: [0,1m) closes
	want := []string{"0s-1m0s a=3", "0s-1m0s b=1"}
	if !equalTexts(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := feed(at(0, 30), "a"); got != nil { // late: dropped and counted
		t.Fatalf("late event emitted %v", got)
	}
	if s := p.Stats(); s.Late != 1 {
		t.Fatalf("late = %d", s.Late)
	}
	got = feed(at(3, 0), "c")
	if want := []string{"1m0s-2m0s a=1"}; !equalTexts(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestAllowedLateness(t *testing.T) {
	p := mustPipeline(t, `[{"type":"GroupBy","aggregates":[{"fn":"count","as":"n"}],
		"window":{"kind":"tumbling","duration":"1m","on":"ts","allowedLateness":"30s"}}]`)
	var out []rows.Row
	for i, ts := range []string{at(0, 10), at(1, 10), at(0, 20), at(1, 29), at(0, 40), at(1, 30), at(0, 50), at(2, 40)} {
		out = append(out, p.Process([]Event{{Row: row(fmt.Sprintf(`{"ts":%q}`, ts)), Offset: int64(i)}})...)
	}
	// 0:20 and 0:40 arrive within 30s of lateness; 1:30 closes [0,1m); 0:50 is late.
	if got, want := windowCounts(out, "k"), []string{"0s-1m0s <nil>=3", "1m0s-2m0s <nil>=3"}; !equalTexts(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if s := p.Stats(); s.Late != 1 {
		t.Fatalf("late = %d", s.Late)
	}
}

func TestHoppingOverlap(t *testing.T) {
	p := mustPipeline(t, `[{"type":"GroupBy","keys":["k"],"aggregates":[{"fn":"count","as":"n"},{"fn":"sum","field":"v"}],
		"window":{"kind":"hopping","duration":"10m","hop":"5m","on":"ts"}}]`)
	out := p.Process(events(
		fmt.Sprintf(`{"ts":%q,"k":"a","v":1}`, at(2, 0)),    // windows [-5,5) [0,10)
		fmt.Sprintf(`{"ts":%q,"k":"a","v":10}`, at(7, 0)),   // [0,10) [5,15)
		fmt.Sprintf(`{"ts":%q,"k":"a","v":100}`, at(12, 0)), // [5,15) [10,20)
		fmt.Sprintf(`{"ts":%q,"k":"z"}`, at(30, 0)),
	))
	got := windowCounts(out, "k")
	want := []string{"-5m0s-5m0s a=1", "0s-10m0s a=2", "5m0s-15m0s a=2", "10m0s-20m0s a=1"}
	if !equalTexts(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	var sums []string
	for _, r := range out {
		sums = append(sums, fmt.Sprint(r["sum_v"]))
	}
	if strings.Join(sums, ",") != "1,11,110,100" {
		t.Fatalf("sums %v", sums)
	}
}

func TestHoppingLateForOnePane(t *testing.T) {
	p := mustPipeline(t, `[{"type":"GroupBy","aggregates":[{"fn":"count","as":"n"}],
		"window":{"kind":"hopping","duration":"10m","hop":"5m","on":"ts"}}]`)
	out := p.Process(events(
		fmt.Sprintf(`{"ts":%q}`, at(1, 0)),  // [-5,5) [0,10)
		fmt.Sprintf(`{"ts":%q}`, at(5, 0)),  // closes [-5,5); in [0,10) [5,15)
		fmt.Sprintf(`{"ts":%q}`, at(4, 0)),  // late for [-5,5), still counts in [0,10)
		fmt.Sprintf(`{"ts":%q}`, at(40, 0)), // closes the rest
	))
	got := windowCounts(out, "k")
	want := []string{"-5m0s-5m0s <nil>=1", "0s-10m0s <nil>=3", "5m0s-15m0s <nil>=1"}
	if !equalTexts(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if s := p.Stats(); s.Late != 1 {
		t.Fatalf("late = %d", s.Late)
	}
}

func TestWindowOffset(t *testing.T) {
	p := mustPipeline(t, `[{"type":"GroupBy","aggregates":[{"fn":"count","as":"n"}],
		"window":{"kind":"tumbling","duration":"5m","offset":"1m","on":"ts"}}]`)
	out := p.Process(events(fmt.Sprintf(`{"ts":%q}`, at(0, 30)), fmt.Sprintf(`{"ts":%q}`, at(1, 0)), fmt.Sprintf(`{"ts":%q}`, at(9, 0))))
	if got, want := windowCounts(out, "k"), []string{"-4m0s-1m0s <nil>=1", "1m0s-6m0s <nil>=1"}; !equalTexts(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestEventTimeFormats(t *testing.T) {
	p := mustPipeline(t, `[{"type":"GroupBy","keys":["src"],"aggregates":[{"fn":"count","as":"n"}],
		"window":{"kind":"tumbling","duration":"1h","on":"when"}}]`)
	out := p.Process(events(
		`{"src":"rfc","when":"2026-01-01T00:10:00Z"}`,
		`{"src":"rfc","when":"2026-01-01T02:10:00.123456789+02:00"}`, // 00:10 UTC
		`{"src":"ms","when":1767226200000}`,                          // 00:10 UTC
		`{"src":"ms","when":1767226200000.75}`,
		`{"src":"bad","when":"yesterday"}`,
		`{"src":"bad","when":true}`,
		`{"src":"bad","when":1e300}`,
		`{"src":"bad"}`,
		`{"src":"end","when":"2026-01-01T05:00:00Z"}`,
	))
	if got, want := windowCounts(out, "src"), []string{"0s-1h0m0s ms=2", "0s-1h0m0s rfc=2"}; !equalTexts(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if s := p.Stats(); s.MissingTime != 4 {
		t.Fatalf("missing time = %d", s.MissingTime)
	}
}

func TestArrivalTimeAndWallClock(t *testing.T) {
	p := mustPipeline(t, `[{"type":"GroupBy","keys":["k"],"aggregates":[{"fn":"count","as":"n"}],
		"window":{"kind":"tumbling","duration":"1m","allowedLateness":"5s"}}]`)
	ev := func(off int64, ts time.Duration, k string) Event {
		return Event{Row: row(fmt.Sprintf(`{"k":%q}`, k)), Timestamp: t0.Add(ts), Offset: off}
	}
	out := p.Process([]Event{ev(0, 10*time.Second, "a"), ev(1, 50*time.Second, "a"), ev(2, 62*time.Second, "b")})
	if out != nil {
		t.Fatalf("closed within the allowed lateness: %v", texts(out))
	}
	if d, ok := p.Deadline(); !ok || !d.Equal(t0.Add(65*time.Second)) {
		t.Fatalf("deadline %v %v", d, ok)
	}
	if out := p.Advance(t0.Add(64 * time.Second)); out != nil {
		t.Fatalf("closed before end + lateness: %v", texts(out))
	}
	got := windowCounts(p.Advance(t0.Add(65*time.Second)), "k")
	if want := []string{"0s-1m0s a=2"}; !equalTexts(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
	if out := p.Advance(t0.Add(65 * time.Second)); out != nil { // once only
		t.Fatalf("emitted twice: %v", texts(out))
	}
	// A record stamped inside the closed window is late.
	p.Process([]Event{ev(3, 59*time.Second, "a")})
	if s := p.Stats(); s.Late != 1 {
		t.Fatalf("late = %d", s.Late)
	}
	// The last window is not held forever.
	got = windowCounts(p.Advance(t0.Add(10*time.Minute)), "k")
	if want := []string{"1m0s-2m0s b=1"}; !equalTexts(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
	if _, ok := p.Deadline(); ok {
		t.Fatal("deadline with no open window")
	}
	if p.Advance(time.Time{}) != nil {
		t.Fatal("zero time advanced")
	}
	// A record without a timestamp has no arrival time.
	p.Process([]Event{{Row: row(`{"k":"x"}`), Offset: 4}})
	if s := p.Stats(); s.MissingTime != 1 {
		t.Fatalf("missing time = %d", s.MissingTime)
	}
}

func TestEventTimeWallClockFollowsRecordTime(t *testing.T) {
	// Old data replayed now: event times in 2020, record timestamps today.
	old := time.Date(2020, 6, 1, 12, 0, 0, 0, time.UTC)
	p := mustPipeline(t, `[{"type":"GroupBy","aggregates":[{"fn":"count","as":"n"}],
		"window":{"kind":"tumbling","duration":"1m","on":"ts"}}]`)
	now := t0
	feed := func(off int64, ts time.Time) {
		p.Process([]Event{{Row: row(fmt.Sprintf(`{"ts":%q}`, ts.Format(time.RFC3339))), Timestamp: now, Offset: off}})
	}
	feed(0, old.Add(10*time.Second))
	// Advancing the wall clock by a little does not close 2020's window...
	if out := p.Advance(now.Add(20 * time.Second)); out != nil {
		t.Fatalf("replayed window cut short: %v", texts(out))
	}
	now = now.Add(20 * time.Second)
	feed(1, old.Add(30*time.Second))
	if d, ok := p.Deadline(); !ok || !d.Equal(now.Add(30*time.Second)) {
		t.Fatalf("deadline %v, want %v", d, now.Add(30*time.Second))
	}
	// ...but once the stream has been idle past the window's end, it closes.
	out := p.Advance(now.Add(30 * time.Second))
	if len(out) != 1 || fmt.Sprint(out[0]["n"]) != "2" || out[0]["window_start"] != "2020-06-01T12:00:00Z" {
		t.Fatalf("got %v", texts(out))
	}
	// With no record timestamps, the wall clock is read as event time.
	q := mustPipeline(t, `[{"type":"GroupBy","aggregates":[{"fn":"count","as":"n"}],
		"window":{"kind":"tumbling","duration":"1m","on":"ts"}}]`)
	q.Process([]Event{{Row: row(fmt.Sprintf(`{"ts":%q}`, at(0, 10))), Offset: -1}})
	if d, ok := q.Deadline(); !ok || !d.Equal(t0.Add(time.Minute)) {
		t.Fatalf("deadline %v", d)
	}
	if out := q.Advance(t0.Add(time.Minute)); len(out) != 1 {
		t.Fatalf("got %v", texts(out))
	}
}

func TestPartitionWatermarks(t *testing.T) {
	const op = `[{"type":"GroupBy","keys":["p"],"aggregates":[{"fn":"count","as":"n"}],
		"window":{"kind":"tumbling","duration":"1m","on":"ts"}}]`
	// Two partitions, each in time order, p1 running ahead of p0.
	var p0, p1 []Event
	for i := range 6 {
		p0 = append(p0, Event{Row: row(fmt.Sprintf(`{"p":0,"ts":%q}`, at(i, 0))), Partition: 0, Offset: int64(i)})
		p1 = append(p1, Event{Row: row(fmt.Sprintf(`{"p":1,"ts":%q}`, at(i+2, 30))), Partition: 1, Offset: int64(i)})
	}
	run := func(order []Event, declare bool) []string {
		p := mustPipeline(t, op)
		if declare {
			p.ExpectPartitions(0, 1)
		}
		out := p.Process(order)
		out = append(out, p.Advance(t0.Add(24*time.Hour))...)
		if s := p.Stats(); s.Late != 0 {
			t.Fatalf("late %d in interleaving", s.Late)
		}
		got := windowCounts(out, "p")
		sort.Strings(got)
		return got
	}
	first := run(append(append([]Event{}, p0...), p1...), true)
	if len(first) != 12 {
		t.Fatalf("windows %v", first)
	}
	for seed := range 20 {
		order := interleave(p0, p1, int64(seed))
		if got := run(order, true); !equalTexts(got, first) {
			t.Fatalf("interleaving %d: %v, want %v", seed, got, first)
		}
	}
	// Declared partitions hold the watermark until each has records, so
	// even all of p1 before any of p0 loses nothing.
	if got := run(append(append([]Event{}, p1...), p0...), true); !equalTexts(got, first) {
		t.Fatalf("p1 then p0: %v, want %v", got, first)
	}
	// Undeclared, p0 appears after p1 has closed its windows: p0 is late.
	p := mustPipeline(t, op)
	p.Process(append(append([]Event{}, p1...), p0...))
	if s := p.Stats(); s.Late != 6 {
		t.Fatalf("undeclared partitions: late %d, want 6", s.Late)
	}
}

func TestGroupByChains(t *testing.T) {
	// Filter → GroupBy → Filter on the aggregate (HAVING) → ManageFields.
	p := mustPipeline(t, `[
		{"type":"Filter","condition":{"field":"ok","op":"eq","value":true}},
		{"type":"GroupBy","keys":["k"],"aggregates":[{"fn":"count","as":"n"}],"window":{"kind":"tumbling","duration":"1m","on":"ts"}},
		{"type":"Filter","condition":{"field":"n","op":"gte","value":2}},
		{"type":"ManageFields","keep":["k","n","window_start"],"rename":{"window_start":"minute"}}]`)
	out := p.Process(events(
		fmt.Sprintf(`{"ts":%q,"k":"a","ok":true}`, at(0, 1)),
		fmt.Sprintf(`{"ts":%q,"k":"a","ok":true}`, at(0, 2)),
		fmt.Sprintf(`{"ts":%q,"k":"b","ok":true}`, at(0, 3)),
		fmt.Sprintf(`{"ts":%q,"k":"b","ok":false}`, at(0, 4)),
		fmt.Sprintf(`{"ts":%q,"k":"c","ok":true}`, at(5, 0)),
	))
	if got, want := texts(out), []string{`{"k":"a","minute":"2026-01-01T00:00:00Z","n":2}`}; !equalTexts(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// GroupBy → GroupBy: per-minute counts rolled up per 5 minutes, on arrival
	// time of the inner windows (their end).
	q := mustPipeline(t, `[
		{"type":"GroupBy","keys":["k"],"aggregates":[{"fn":"count","as":"n"}],"window":{"kind":"tumbling","duration":"1m","on":"ts"}},
		{"type":"GroupBy","aggregates":[{"fn":"sum","field":"n","as":"total"},{"fn":"count","as":"groups"}],"window":{"kind":"tumbling","duration":"5m"}}]`)
	var docs []string
	for i := range 9 {
		docs = append(docs, fmt.Sprintf(`{"ts":%q,"k":"k%d"}`, at(i/2, 0), i%2))
	}
	docs = append(docs, fmt.Sprintf(`{"ts":%q}`, at(30, 0)))
	out = q.Process(events(docs...))
	out = append(out, q.Advance(t0.Add(24*time.Hour))...)
	// Inner windows carry their last instant (end − 1ns) as record time, so
	// the minute [4m, 5m) rolls up into [0, 5m).
	want := []string{
		`{"_window_start":"2026-01-01T00:00:00Z","groups":9,"total":9,"window_end":"2026-01-01T00:05:00Z","window_start":"2026-01-01T00:00:00Z"}`,
		`{"_window_start":"2026-01-01T00:30:00Z","groups":1,"total":1,"window_end":"2026-01-01T00:35:00Z","window_start":"2026-01-01T00:30:00Z"}`,
	}
	if got := texts(out); !equalTexts(got, want) {
		t.Fatalf("rollup\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWindowStamp(t *testing.T) {
	p := mustPipeline(t, `[{"type":"Window","kind":"tumbling","duration":"1m","on":"ts"}]`)
	out := p.Process(events(`{"ts":"2026-01-01T00:01:30.5Z","v":1}`, `{"v":2}`))
	want := []string{
		`{"_window_start":"2026-01-01T00:01:00Z","ts":"2026-01-01T00:01:30.5Z","v":1,"window_end":"2026-01-01T00:02:00Z","window_start":"2026-01-01T00:01:00Z"}`,
		`{"_window_start":null,"v":2,"window_end":null,"window_start":null}`,
	}
	if got := texts(out); !equalTexts(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if s := p.Stats(); s.MissingTime != 1 || s.Rows != 2 {
		t.Fatalf("stats %+v", s)
	}
	if p.Stateful() {
		t.Fatal("a stamp holds no state")
	}
}
