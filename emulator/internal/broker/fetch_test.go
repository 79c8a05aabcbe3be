package broker

// The consume route reads ranges as Spark's Kafka source does
// (https://spark.apache.org/docs/latest/structured-streaming-kafka-integration.html):
// startingOffsets to endingOffsets, skipping the control records
// transactions leave in the log, with nextOffsets past them.

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestConsumeSkipsControlRecordsAndCompletes(t *testing.T) {
	b, err := Embedded(EmbeddedConfig{}, WithPartitions(1))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const topic = "txn-topic"
	if err := b.CreateTopic(ctx, topic); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Bootstrap()...), kgo.DefaultProduceTopic(topic), kgo.TransactionalID("t1"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"a", "b", "c"} {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	ends, err := b.EndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if ends[0] != 4 { // three records and the commit marker
		t.Fatalf("end offset %d, want 4", ends[0])
	}
	start := time.Now()
	batch, err := b.Consume(ctx, topic, Range{DefaultStart: Earliest, DefaultEnd: Latest, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(batch.Records) != 3 || !batch.Complete || batch.Next[0] != 4 {
		t.Fatalf("got %d records, complete %v, next %v; want 3, true, 4", len(batch.Records), batch.Complete, batch.Next)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the read took %s: it waited for the marker as if it were a record", took)
	}
	for i, r := range batch.Records {
		if r.Offset != int64(i) || string(r.Value) != string("abc"[i]) {
			t.Errorf("record %d: offset %d value %q", i, r.Offset, r.Value)
		}
	}
	capped, err := b.Consume(ctx, topic, Range{DefaultStart: Earliest, DefaultEnd: Latest, MaxRecords: 2, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(capped.Records) != 2 || capped.Complete || capped.Next[0] != 2 {
		t.Fatalf("capped: %d records, complete %v, next %v; want 2, false, 2", len(capped.Records), capped.Complete, capped.Next)
	}
}
