package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"
)

// bufferStore is a store in dir holding one destination "d".
func bufferStore(t *testing.T, dir string) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.GetDestination(ctx, "d"); err == nil {
		return s
	}
	newWorkspace(t, s, "w", "w")
	if err := s.CreateItem(ctx, Item{ID: "es", WorkspaceID: "w", Type: "Eventstream", DisplayName: "es"}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateDestination(ctx, Destination{ID: "d", EventstreamID: "es", Type: "Lakehouse", WorkspaceID: "w", ItemID: "es", Target: "t"}); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBufferRowsSurviveReopenAndTakeOnce: buffered rows and the offsets
// they came from are saved together and survive a reopen; TakeBuffer
// moves them, in order, into the journal's pending batch and empties the
// buffer (issue 15: "buffered rows are journalled, so a crash loses
// nothing and writes nothing twice"; fabric-docs add-destination-lakehouse:
// minimumRows / maximumDurationInSeconds).
func TestBufferRowsSurviveReopenAndTakeOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := bufferStore(t, dir)
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	if err := s.BufferRows(ctx, Journal{DestinationID: "d", Seq: 3, Offsets: map[int32]int64{0: 2}}, [][]byte{[]byte(`{"n":1}`), []byte(`{"n":2}`)}, t0); err != nil {
		t.Fatal(err)
	}
	if err := s.BufferRows(ctx, Journal{DestinationID: "d", Seq: 3, Offsets: map[int32]int64{0: 3}}, [][]byte{[]byte(`{"n":3}`)}, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = bufferStore(t, dir)
	b, err := s.BufferOf(ctx, "d")
	if err != nil || b.Rows != 3 || !b.First.Equal(t0) {
		t.Fatalf("buffer after reopen = %+v, %v; want 3 rows, first at %v", b, err, t0)
	}
	j, err := s.GetJournal(ctx, "d")
	if err != nil || j.Offsets[0] != 3 || j.Seq != 3 {
		t.Fatalf("journal saved with the rows = %+v, %v; want offset 3, seq 3", j, err)
	}
	j.Seq++
	taken, n, err := s.TakeBuffer(ctx, j)
	if err != nil || n != 3 {
		t.Fatalf("take = %d rows, %v; want 3", n, err)
	}
	var rows []map[string]int
	if err := json.Unmarshal(taken.Pending, &rows); err != nil || fmt.Sprint(rows) != "[map[n:1] map[n:2] map[n:3]]" {
		t.Fatalf("pending batch %s (%v), want the three rows in order", taken.Pending, err)
	}
	stored, _ := s.GetJournal(ctx, "d")
	if stored.Seq != 4 || string(stored.Pending) != string(taken.Pending) {
		t.Fatalf("journal after take = seq %d pending %s", stored.Seq, stored.Pending)
	}
	if b, _ := s.BufferOf(ctx, "d"); b.Rows != 0 || !b.First.IsZero() {
		t.Fatalf("buffer after take = %+v, want empty", b)
	}
	if _, _, err := s.TakeBuffer(ctx, stored); !errors.Is(err, ErrEmptyBuffer) {
		t.Fatalf("second take = %v, want ErrEmptyBuffer", err)
	}
	if again, _ := s.GetJournal(ctx, "d"); string(again.Pending) != string(taken.Pending) {
		t.Fatal("a refused take changed the journal")
	}
}

// TestBufferAppendStaysCheap: 100,000 rows buffered in batches of 10,000
// (a drain's largest) take about what one insert per row costs, not a
// rewrite of the buffer per batch.
func TestBufferAppendStaysCheap(t *testing.T) {
	ctx := context.Background()
	s := bufferStore(t, "")
	row := []byte(`{"row":{"id":1,"name":"bike"},"partition":0,"offset":1}`)
	batch := make([][]byte, 10_000)
	for i := range batch {
		batch[i] = row
	}
	took := make([]time.Duration, 10)
	for i := range took {
		began := time.Now()
		if err := s.BufferRows(ctx, Journal{DestinationID: "d", Offsets: map[int32]int64{0: int64(i+1) * 10_000}}, batch, time.Now()); err != nil {
			t.Fatal(err)
		}
		took[i] = time.Since(began)
	}
	if b, _ := s.BufferOf(ctx, "d"); b.Rows != 100_000 {
		t.Fatalf("buffered %d rows, want 100000", b.Rows)
	}
	// A rewrite per batch would make the last batches about ten times the
	// first ones; the fastest of each pair discounts a busy machine.
	early, late := min(took[0], took[1]), min(took[8], took[9])
	if late > 5*early+time.Second {
		t.Fatalf("batches took %v: appending grows with the buffer", took)
	}
}
