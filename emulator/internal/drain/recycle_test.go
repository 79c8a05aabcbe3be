package drain

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// checkingSink holds each batch for a while inside Write and checks that
// its records still hold what they held when the write began: a record
// recycled while a sink has it shows up as a changed (or zeroed) value.
// With poison set, a batch of several records holding it (as a substring)
// starts a reader that checks again after linger, and the write panics,
// as a sink that left a goroutine of its own reading the batch would.
type checkingSink struct {
	memSink
	hold    time.Duration // inside Write
	linger  time.Duration // the reader after a panic
	poison  string
	changed atomic.Int64 // records seen to change under a sink
	readers sync.WaitGroup
}

func (s *checkingSink) Write(ctx context.Context, b Batch) error {
	before := make([]string, len(b.Records))
	for i, r := range b.Records {
		before[i] = string(r.Value)
	}
	check := func() {
		for i, r := range b.Records {
			if string(r.Value) != before[i] {
				s.changed.Add(1)
			}
		}
	}
	if s.poison != "" && len(b.Records) > 1 && strings.Contains(strings.Join(before, ","), s.poison) {
		s.readers.Add(1)
		go func() {
			defer s.readers.Done()
			time.Sleep(s.linger)
			check()
		}()
		panic("cannot take " + s.poison)
	}
	time.Sleep(s.hold)
	check()
	return s.memSink.Write(ctx, b)
}

// Drains sharing a pool get the same records; one drain done with them
// must not recycle what another's sink is still writing, and once all are
// done the records' slabs go back to the pool.
func TestRecordsAreRecycledOnlyOnceEverySinkIsDone(t *testing.T) {
	seeds, topic := cluster(t)
	pool, err := NewPool(seeds, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close(context.Background())
	slow := &checkingSink{memSink: memSink{resume: map[int32]int64{}}, hold: 100 * time.Millisecond}
	fast := &memSink{resume: map[int32]int64{}}
	var drains []*Drain
	for group, sink := range map[string]Sink{"slow": slow, "fast": fast} {
		// Batches of 100: a fetch's records outlast several writes.
		d, err := Start(t.Context(), Config{Topic: topic, Group: group, Sink: sink, Pool: pool, MaxBatch: 100})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		drains = append(drains, d)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for i := range 5 {
		last := produce(t, seeds, topic, 500*i, 500)
		for _, d := range drains {
			if err := d.WaitPast(ctx, last); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := slow.changed.Load(); n != 0 {
		t.Fatalf("%d records changed while a sink was writing them", n)
	}
	for _, s := range []*memSink{&slow.memSink, fast} {
		if got := distinct(s.values); len(s.values) != 2500 || len(got) != 2500 || !got["0"] || !got["2499"] {
			t.Fatalf("delivered %d records, %d distinct values, want 0 to 2499 once each", len(s.values), len(got))
		}
	}
	if pool.slabs.puts.Load() == 0 {
		t.Fatal("no record slab went back to the pool")
	}
}

func distinct(values []string) map[string]bool {
	out := map[string]bool{}
	for _, v := range values {
		out[v] = true
	}
	return out
}

// The records of a batch whose write panicked are never recycled: the
// sink may have left a goroutine reading them.
func TestRecordsOfAPanickedWriteAreNotRecycled(t *testing.T) {
	seeds, topic := cluster(t)
	sink := &checkingSink{memSink: memSink{resume: map[int32]int64{}}, linger: 300 * time.Millisecond, poison: "13"}
	d, err := Start(t.Context(), Config{Seeds: seeds, Topic: topic, Group: "gp", Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for i := range 4 {
		last := produce(t, seeds, topic, 50*i, 50)
		if err := d.WaitPast(ctx, last); err != nil {
			t.Fatal(err)
		}
	}
	sink.readers.Wait()
	if n := sink.changed.Load(); n != 0 {
		t.Fatalf("%d records changed under the reader a panicked write left", n)
	}
	if st := d.Status(); st.Panics == 0 || st.Written != 200 {
		t.Fatalf("status %+v, want a panic recovered and 200 records written", st)
	}
}
