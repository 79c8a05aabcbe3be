package runtime

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/clock"
	"github.com/fabrictest/fabrictest/emulator/internal/drain"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/twmb/franz-go/pkg/kgo"
)

// seqWriter keeps each seq's rows once (like a Delta txn) and can be told
// to fail its next write.
type seqWriter struct {
	mu      sync.Mutex
	batches map[int64][]string
	failing bool
}

func (w *seqWriter) write(_ context.Context, seq int64, out []outRow) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failing {
		w.failing = false
		return errors.New("the disk is gone")
	}
	if w.batches == nil {
		w.batches = map[int64][]string{}
	}
	if _, ok := w.batches[seq]; ok {
		return nil // written before
	}
	for _, r := range out {
		w.batches[seq] = append(w.batches[seq], string(r.Value))
	}
	return nil
}

func (w *seqWriter) all() (seqs int, values []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range slices.Sorted(func(yield func(int64) bool) {
		for k := range w.batches {
			if !yield(k) {
				return
			}
		}
	}) {
		values = append(values, w.batches[s]...)
	}
	return len(w.batches), values
}

// from is a batch of values at offsets from first on.
func from(first int64, values ...string) drain.Batch {
	b := drain.Batch{Last: map[int32]int64{}}
	for i, v := range values {
		o := first + int64(i)
		b.Records = append(b.Records, &kgo.Record{Value: []byte(v), Partition: 0, Offset: o})
		b.Last[0] = o
	}
	return b
}

func batchingProcessor(t *testing.T, ctx context.Context, w rowWriter, clk *clock.Clock, b eventstream.Batching) *processor {
	t.Helper()
	st, dest := journalStore(t)
	return reopen(t, ctx, st, dest, w, clk, b)
}

// TestBatchingCommitsAtMinimumRowsOrDuration follows fabric-docs
// add-destination-lakehouse: a file is committed when minimumRows rows
// are buffered or maximumDurationInSeconds has passed since the first
// buffered row, whichever comes first; each commit is one write.
func TestBatchingCommitsAtMinimumRowsOrDuration(t *testing.T) {
	ctx := context.Background()
	w := &seqWriter{}
	clk := clock.New(nil)
	p := batchingProcessor(t, ctx, w, clk, eventstream.Batching{MinimumRows: 3, MaximumDurationInSeconds: 60})
	if err := p.Write(ctx, from(0, `1`, `2`)); err != nil {
		t.Fatal(err)
	}
	clk.Advance(59 * time.Second)
	if err := p.Tick(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if n, _ := w.all(); n != 0 {
		t.Fatalf("%d commits before 3 rows or 60 s", n)
	}
	if err := p.Write(ctx, from(2, `3`)); err != nil {
		t.Fatal(err)
	}
	if n, v := w.all(); n != 1 || !slices.Equal(v, []string{"1", "2", "3"}) {
		t.Fatalf("after the third row: %d commits of %q, want one of 1,2,3", n, v)
	}
	if err := p.Write(ctx, from(3, `4`)); err != nil {
		t.Fatal(err)
	}
	clk.Advance(60 * time.Second)
	if err := p.Tick(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if n, v := w.all(); n != 2 || !slices.Equal(v, []string{"1", "2", "3", "4"}) {
		t.Fatalf("60 s after row 4: %d commits of %q, want two", n, v)
	}
	if rows, _, _ := p.Buffered(); rows != 0 {
		t.Fatalf("%d rows still buffered", rows)
	}
}

// TestBatchingSurvivesRestartAndFailedCommit: rows buffered before a
// restart are committed after it, once; a commit whose write failed is
// written again under the same seq (issue 15: "a crash loses nothing and
// writes nothing twice").
func TestBatchingSurvivesRestartAndFailedCommit(t *testing.T) {
	ctx := context.Background()
	w := &seqWriter{}
	clk := clock.New(nil)
	b := eventstream.Batching{MinimumRows: 100, MaximumDurationInSeconds: 120}
	st, dest := journalStore(t)
	p := reopen(t, ctx, st, dest, w, clk, b)
	if err := p.Write(ctx, from(0, `1`, `2`)); err != nil {
		t.Fatal(err)
	}
	// A restart: a new processor on the same store, replaying offset 1
	// (the drain resumes from the journal, but Kafka may hand it again).
	p = reopen(t, ctx, st, dest, w, clk, b)
	if rows, _, _ := p.Buffered(); rows != 2 {
		t.Fatalf("after the restart %d rows buffered, want 2", rows)
	}
	if err := p.Write(ctx, from(1, `2`, `3`)); err != nil {
		t.Fatal(err)
	}
	w.failing = true
	if _, err := p.Flush(ctx); err == nil {
		t.Fatal("a flush whose write failed reported success")
	}
	p = reopen(t, ctx, st, dest, w, clk, b) // the pending batch is written on resume
	if _, err := p.Resume(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n, v := w.all(); n != 1 || !slices.Equal(v, []string{"1", "2", "3"}) {
		t.Fatalf("%d commits of %q, want one of 1,2,3", n, v)
	}
	if n, err := p.Flush(ctx); n != 0 || err != nil {
		t.Fatalf("flushing an empty buffer = %d, %v", n, err)
	}
}

func reopen(t *testing.T, ctx context.Context, st *store.Store, dest string, w rowWriter, clk *clock.Clock, b eventstream.Batching) *processor {
	t.Helper()
	rej, _ := testRejecter(t)
	p, err := newProcessor(ctx, st, dest, nil, w, rej, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.enableBatching(ctx, b, clk.Now); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBatchingTurnedOffCommitsLeftover: a destination whose batching was
// removed (a definition updated, a binding changed) commits what it had
// buffered with its next batch, then commits every batch at once.
func TestBatchingTurnedOffCommitsLeftover(t *testing.T) {
	ctx := context.Background()
	w := &seqWriter{}
	clk := clock.New(nil)
	st, dest := journalStore(t)
	p := reopen(t, ctx, st, dest, w, clk, eventstream.Batching{MinimumRows: 100, MaximumDurationInSeconds: 120})
	if err := p.Write(ctx, from(0, `1`, `2`)); err != nil {
		t.Fatal(err)
	}
	rej, _ := testRejecter(t)
	p, err := newProcessor(ctx, st, dest, nil, w, rej, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.commitLeftover(ctx, clk.Now); err != nil {
		t.Fatal(err)
	}
	if err := p.Write(ctx, from(2, `3`)); err != nil {
		t.Fatal(err)
	}
	if n, v := w.all(); n != 1 || !slices.Equal(v, []string{"1", "2", "3"}) {
		t.Fatalf("%d commits of %q, want the leftover with the new row in one", n, v)
	}
	if _, _, ok := p.Buffered(); ok {
		t.Fatal("still batching after the leftover was committed")
	}
	if err := p.Write(ctx, from(3, `4`)); err != nil {
		t.Fatal(err)
	}
	if n, _ := w.all(); n != 2 {
		t.Fatalf("%d commits, want the next batch committed at once", n)
	}
}
