package drain

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// memSink records what it was given and keeps resume points like a real
// sink keeps them with its data. failN makes the next N writes fail.
type memSink struct {
	mu      sync.Mutex
	values  []string
	resume  map[int32]int64
	failN   int
	onWrite func() // runs after a successful write
}

func (s *memSink) Resume(context.Context, []int32) (map[int32]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int32]int64{}
	for p, o := range s.resume {
		out[p] = o
	}
	return out, nil
}

func (s *memSink) Write(_ context.Context, b Batch) error {
	s.mu.Lock()
	if s.failN > 0 {
		s.failN--
		s.mu.Unlock()
		return errors.New("sink down")
	}
	for _, r := range b.Records {
		if o, ok := s.resume[r.Partition]; ok && r.Offset <= o {
			continue // already written: exactly once
		}
		s.values = append(s.values, string(r.Value))
	}
	for p, o := range b.Last {
		s.resume[p] = o
	}
	hook := s.onWrite
	s.mu.Unlock()
	if hook != nil {
		hook()
	}
	return nil
}

func (s *memSink) count() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.values) }

func cluster(t *testing.T) ([]string, string) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs(), "t"
}

func produce(t *testing.T, seeds []string, topic string, from, n int) map[int32]int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for i := from; i < from+n; i++ {
		recs = append(recs, &kgo.Record{Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprint(i))})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	last := map[int32]int64{}
	for _, r := range recs {
		last[r.Partition] = max(last[r.Partition], r.Offset)
	}
	return last
}

func TestDrainDeliversOnlyWhatFollowsTheBinding(t *testing.T) {
	seeds, topic := cluster(t)
	produce(t, seeds, topic, 0, 5) // before the binding: not delivered
	sink := &memSink{resume: map[int32]int64{}}
	d, err := Start(t.Context(), Config{Seeds: seeds, Topic: topic, Group: "g1", Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	last := produce(t, seeds, topic, 5, 100)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := d.WaitPast(ctx, last); err != nil {
		t.Fatal(err)
	}
	if n := sink.count(); n != 100 {
		t.Fatalf("sink has %d records, want 100", n)
	}
}

// The sink fails until the test has seen WaitPast report its error (a
// fixed number of failures could all pass before WaitPast is called on a
// loaded machine, and WaitPast rightly ignores those), then recovers.
func TestDrainRetriesAndReportsFailure(t *testing.T) {
	seeds, topic := cluster(t)
	const failing = 1_000_000
	sink := &memSink{resume: map[int32]int64{}, failN: failing}
	d, err := Start(t.Context(), Config{Seeds: seeds, Topic: topic, Group: "g2", Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	last := produce(t, seeds, topic, 0, 10)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := d.WaitPast(ctx, last); err == nil || err.Error() != "sink down" {
		t.Fatalf("WaitPast = %v, want the sink's error", err)
	}
	sink.mu.Lock()
	failed := int64(failing - sink.failN)
	sink.failN = 0
	sink.mu.Unlock()
	// The drain keeps retrying; once the sink recovers everything lands once.
	for d.WaitPast(ctx, last) != nil {
		if ctx.Err() != nil {
			t.Fatal("drain never recovered")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := sink.count(); n != 10 {
		t.Fatalf("sink has %d records, want 10", n)
	}
	if st := d.Status(); st.Failures != failed || st.Err != nil || st.Written != 10 {
		t.Fatalf("status %+v, want %d failures", st, failed)
	}
}

// TestDrainCrashBetweenWriteAndCommit leaves the group's offsets behind
// what the sink wrote, as a crash between a write and its offset commit
// does (here the group refuses the drain's commits); the next drain
// replays from the group's offsets and the sink's resume points keep
// anything from landing twice.
func TestDrainCrashBetweenWriteAndCommit(t *testing.T) {
	h := holdingCluster(t)
	seeds, topic := h.c.ListenAddrs(), "t"
	sink := &memSink{resume: map[int32]int64{}}
	d, err := Start(t.Context(), Config{Seeds: seeds, Topic: topic, Group: "g3", Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	h.refused.Store(true)
	first := produce(t, seeds, topic, 0, 50)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := d.WaitPast(ctx, first); err != nil {
		t.Fatal(err)
	}
	d.Close()
	committed := committedOf(t, seeds, "g3", topic)
	behind := false
	for p, o := range first {
		behind = behind || committed[p] <= o
	}
	if !behind {
		t.Fatalf("the group is at %v, past the 50 records written (%v): nothing to replay", committed, first)
	}
	h.refused.Store(false)

	d2, err := Start(t.Context(), Config{Seeds: seeds, Topic: topic, Group: "g3", Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	last := produce(t, seeds, topic, 50, 50)
	if err := d2.WaitPast(ctx, last); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, v := range sink.values {
		seen[v]++
	}
	if len(sink.values) != 100 || len(seen) != 100 {
		t.Fatalf("%d values, %d distinct, want 100 and 100 (committed before restart: %v)", len(sink.values), len(seen), committed)
	}
}
