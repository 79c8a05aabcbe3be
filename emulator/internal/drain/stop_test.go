package drain

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// With StopOnError (a destination whose error policy is fail) the first
// failed write stops the drain: WaitPast answers a *StoppedError at once,
// no offset is committed past the batch, and nothing more is delivered
// even once the sink would succeed; a new drain delivers the batch again.
func TestDrainStopOnError(t *testing.T) {
	seeds, topic := cluster(t)
	sink := &memSink{resume: map[int32]int64{}, failN: 1}
	d, err := Start(t.Context(), Config{Seeds: seeds, Topic: topic, Group: "g-stop", Sink: sink, StopOnError: true})
	if err != nil {
		t.Fatal(err)
	}
	last := produce(t, seeds, topic, 0, 10)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var se *StoppedError
	if err := d.WaitPast(ctx, last); !errors.As(err, &se) || se.Err.Error() != "sink down" {
		t.Fatalf("WaitPast = %v, want a *StoppedError of the sink's error", err)
	}
	if err := d.WaitPast(ctx, last); !errors.As(err, &se) {
		t.Fatalf("WaitPast again = %v, want the same stop at once", err)
	}
	if st := d.Status(); !st.Stopped || st.Failures != 1 || st.Written != 0 {
		t.Fatalf("status %+v", st)
	}
	time.Sleep(100 * time.Millisecond) // a drain that went on would write now: the sink succeeds
	if n := sink.count(); n != 0 {
		t.Fatalf("a stopped drain delivered %d records", n)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	committed, err := kadm.NewClient(cl).FetchOffsets(t.Context(), "g-stop")
	if err != nil {
		t.Fatal(err)
	}
	for p, o := range last {
		if c, ok := committed.Lookup(topic, p); ok && c.At > o {
			t.Fatalf("partition %d committed at %d past the stopped batch (last %d)", p, c.At, o)
		}
	}
	d.Close()

	d2, err := Start(t.Context(), Config{Seeds: seeds, Topic: topic, Group: "g-stop", Sink: sink, StopOnError: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if err := d2.WaitPast(ctx, last); err != nil {
		t.Fatal(err)
	}
	if n := sink.count(); n != 10 {
		t.Fatalf("sink has %d records after the restart, want 10", n)
	}
}
