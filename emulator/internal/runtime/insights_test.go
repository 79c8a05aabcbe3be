package runtime

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/drain"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/twmb/franz-go/pkg/kgo"
)

// fakeWriter fails while fail is set and rejects the rows whose value is
// "bad" through the destination's rejecter.
type fakeWriter struct {
	fail error
	rej  *rejecter
}

func (f *fakeWriter) write(ctx context.Context, seq int64, out []outRow) error {
	if f.fail != nil {
		return f.fail
	}
	for _, o := range out {
		if string(o.Value) == "bad" {
			if err := f.rej.reject(ctx, []rejectedRow{{Seq: seq, Out: o, Reason: errors.New("bad row"), Metric: insights.DataConversionErrors}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Output events are the rows a writer commits (fabric-docs, "Monitor the
// status and performance of an eventstream"): rows it rejected are not,
// and a failed write is a runtime error with an Error runtime log.
func TestCountedWriterCountsCommittedRowsAndFailures(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rt := New(Config{Now: func() time.Time { return at }})
	d := store.Destination{ID: "d1"}
	fw := &fakeWriter{rej: rt.rejecterOf(d, "")}
	w := rt.countOutput(d, fw)
	out := []outRow{{Value: []byte(`{"a":1}`)}, {Value: []byte("bad")}, {Value: []byte(`{"a":22}`)}}

	fw.fail = errors.New("table is locked")
	if err := w.write(context.Background(), 1, out); err == nil {
		t.Fatal("failed write reported success")
	}
	fw.fail = nil
	if err := w.write(context.Background(), 1, out); err != nil {
		t.Fatal(err)
	}
	c := rt.Insights("d1").Counters()
	// 3 rows of 7+3+8 bytes, one rejected: 2 rows, their share 18*2/3.
	want := map[insights.Metric]int64{insights.OutputEvents: 2, insights.OutputEventBytes: 12, insights.RuntimeErrors: 1, insights.DataConversionErrors: 1}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("%s = %d, want %d (all %v)", k, c[k], v, c)
		}
	}
	errs := insights.Filter(rt.Insights("d1").Logs(), []insights.Level{insights.LevelError}, "locked")
	if len(errs) != 1 || !errs[0].Time.Equal(at) {
		t.Errorf("error logs %+v", errs)
	}
}

// countedSink counts what the processor took once it took it: input
// events and bytes, values that are not JSON objects, the watermark delay
// from the emulator clock, and the stream's outgoing messages.
func TestCountedSinkCountsInputOnce(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 10, 0, time.UTC)
	rt := New(Config{Now: func() time.Time { return now }})
	p := &processor{}
	s := &countedSink{processor: p, node: rt.Insights("d1"), stream: rt.StreamNode("es", "ds"), now: rt.cfg.Now}
	b := drain.Batch{Records: []*kgo.Record{
		{Value: []byte(`{"a":1}`), Timestamp: now.Add(-7 * time.Second)},
		{Value: []byte(` [1,2]`), Timestamp: now.Add(-9 * time.Second)},
		{Value: nil, Timestamp: now.Add(-8 * time.Second)},
	}}
	s.add(countBatch(b, true))
	c := rt.Insights("d1").Counters()
	want := map[insights.Metric]int64{insights.InputEvents: 3, insights.InputEventBytes: 13, insights.DeserializationErrors: 2, insights.WatermarkDelaySeconds: 7}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("%s = %d, want %d (all %v)", k, c[k], v, c)
		}
	}
	if sc := rt.StreamNode("es", "DS").Counters(); sc[insights.OutgoingMessages] != 3 || sc[insights.OutgoingBytes] != 13 {
		t.Errorf("stream %v", sc)
	}
	rt.CountProduced("es.ds", "Src", []*kgo.Record{{Value: []byte("xy")}})
	if sc := rt.SourceNode("es", "src").Counters(); sc[insights.InputEvents] != 1 || sc[insights.OutputEvents] != 1 || sc[insights.InputEventBytes] != 2 {
		t.Errorf("source %v", sc)
	}
}

// What the write-behind saved is what a runtime started after a crash
// (no Close) restores; counts made after the last save are lost.
func TestInsightsSavedRestoreAfterCrash(t *testing.T) {
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rt := New(Config{Store: st})
	defer rt.saver.close()
	rt.Insights("d1").Add(insights.InputEvents, 5)
	rt.StreamNode("es", "ds").Add(insights.IncomingMessages, 5)
	rt.Insights("d1").Log(time.Unix(10, 0), insights.LevelError, "write failed")
	rt.SaveInsights()
	rt.Insights("d1").Add(insights.InputEvents, 2) // not saved yet: a crash loses it

	again := New(Config{Store: st})
	defer again.saver.close()
	if c := again.Insights("d1").Counters(); c[insights.InputEvents] != 5 {
		t.Errorf("restored %v", c)
	}
	if c := again.StreamNode("es", "ds").Counters(); c[insights.IncomingMessages] != 5 {
		t.Errorf("restored stream %v", c)
	}
	if l := again.Insights("d1").Logs(); len(l) != 1 || l[0].Message != "write failed" {
		t.Errorf("restored logs %+v", l)
	}
}

// CountIngested is the one rule of every door: the stream counts the
// events and their value bytes; a source named counts them as taken in
// and sent on; none named, no source counts.
func TestCountIngestedCountsStreamAndSource(t *testing.T) {
	rt := New(Config{})
	rt.CountIngested("es.ds", "Src", 3, 30)
	rt.CountIngested("es.ds", "", 2, 5)
	rt.CountIngested("no-topic-of-an-eventstream", "Src", 9, 9)
	if c := rt.StreamNode("es", "DS").Counters(); c[insights.IncomingMessages] != 5 || c[insights.IncomingBytes] != 35 {
		t.Errorf("stream %v", c)
	}
	c := rt.SourceNode("es", "src").Counters()
	want := map[insights.Metric]int64{insights.InputEvents: 3, insights.InputEventBytes: 30, insights.OutputEvents: 3}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("source %s = %d, want %d (all %v)", k, c[k], v, c)
		}
	}
}
