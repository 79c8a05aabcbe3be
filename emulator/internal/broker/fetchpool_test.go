package broker

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestReleasedBatchesLeaveKeptRecordsIntact: records a read keeps share
// their fetched batch's memory with the records it drops (past the range's
// end, past maxRecords), which go back to the pool at once; the kept ones
// stay intact through later reads until their batch is released, and
// reads after a release, reusing that memory, read right.
func TestReleasedBatchesLeaveKeptRecordsIntact(t *testing.T) {
	const topic, n = "pooled-reads", 50
	b := embeddedTopic(t, topic, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, `{"i":%d,"pad":"%0100d"}`, i, i)}
	}
	if _, err := b.Produce(ctx, topic, recs); err != nil { // one batch
		t.Fatal(err)
	}
	read := func(start, end int64, maxRecords int) *Batch {
		t.Helper()
		batch, err := b.Consume(ctx, topic, Range{Start: map[int32]int64{0: start}, End: map[int32]int64{0: end},
			MaxRecords: maxRecords, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return batch
	}
	check := func(name string, batch *Batch, from, count int) {
		t.Helper()
		if len(batch.Records) != count {
			t.Fatalf("%s: %d records, want %d", name, len(batch.Records), count)
		}
		for k, r := range batch.Records {
			i := from + k
			want := fmt.Sprintf(`{"i":%d,"pad":"%0100d"}`, i, i)
			if r.Offset != int64(i) || string(r.Key) != fmt.Sprintf("k%d", i) || string(r.Value) != want {
				t.Fatalf("%s: record %d is offset %d key %q value %.40q, want offset %d", name, k, r.Offset, r.Key, r.Value, i)
			}
		}
	}
	head := read(0, 20, 0)   // drops 20..49 of the fetched batch
	capped := read(10, n, 5) // drops all but 10..14
	for range 20 {           // reads that take and give back memory meanwhile
		tail := read(20, n, 0)
		check("tail", tail, 20, 30)
		tail.Release()
	}
	check("head", head, 0, 20)
	check("capped", capped, 10, 5)
	head.Release()
	capped.Release()
	if head.Records != nil {
		t.Error("a released batch still lists its records")
	}
	for range 20 {
		all := read(0, n, 0)
		check("all", all, 0, n)
		all.Release()
	}
}
