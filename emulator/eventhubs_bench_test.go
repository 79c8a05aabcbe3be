package emulator_test

// The Event Hubs door's figures for `make bench`: the AMQP endpoint
// against the Kafka endpoint (the gateway) of the same emulator, the same
// Eventstream and the same events, both sides in the same run.

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azeventhubs"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// BenchmarkEventHubsRatio runs an Event Hubs SDK (azeventhubs) against
// the AMQP endpoint and franz-go against the Kafka endpoint in turns of
// benchTurn each and reports the AMQP side's events/s as a share of the
// Kafka side's: send of 1,000-event batches against a Kafka produce of
// the same batches, receive against a Kafka fetch. The target is 60%
// both ways.
func BenchmarkEventHubsRatio(b *testing.B) {
	b.Run("send", benchEHSend)
	b.Run("receive", benchEHReceive)
}

// ehBenchTopology is one CustomEndpoint source into the DefaultStream and
// one CustomEndpoint destination out of it: no sink to share the machine.
func ehBenchTopology() map[string]any {
	return map[string]any{
		"sources": []any{map[string]any{"name": "app", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{map[string]any{"name": "bench-stream", "type": "DefaultStream", "properties": map[string]any{},
			"inputNodes": []any{map[string]any{"name": "app"}}}},
		"destinations": []any{map[string]any{"name": "out", "type": "CustomEndpoint", "properties": map[string]any{},
			"inputNodes": []any{map[string]any{"name": "bench-stream"}}}},
	}
}

// ehBench is an emulator with ehBenchTopology deployed, and the source's
// and the destination's connections.
type ehBench struct {
	src, dst connectionJSON
}

func newEHBench(b *testing.B) ehBench {
	e := startEnv(b)
	ws := e.workspace("bench")
	es := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams",
		map[string]any{"displayName": "bench", "definition": definitionOf(ehBenchTopology(), nil)}))
	base := "/v1/workspaces/" + ws + "/eventstreams/" + es.str("id")
	tp := e.must(200, e.call("GET", base+"/topology", nil)).Body
	f := endpointFixture{e: e, base: base}
	return ehBench{
		src: f.connection("GET", "/sources/"+nodesByName(tp, "sources")["app"]["id"].(string)+"/connection", nil),
		dst: f.connection("GET", "/destinations/"+nodesByName(tp, "destinations")["out"]["id"].(string)+"/connection", nil),
	}
}

// kafka is a franz-go client of the Kafka endpoint holding c's string,
// with the emulator's own producer settings (no linger, acks=all).
func (c connectionJSON) kafka(b *testing.B, opts ...kgo.Opt) *kgo.Client {
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(c.FullyQualifiedNamespace),
		kgo.SASL(plain.Auth{User: "$ConnectionString", Pass: c.AccessKeys.PrimaryConnectionString}.AsMechanism()),
		kgo.DefaultProduceTopic(c.EventHubName),
		kgo.ProducerLinger(0),
		kgo.MaxBufferedRecords(1_000_000),
	}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cl.Close)
	return cl
}

// ehBenchValues are benchBatch small JSON events, as newBenchEvents makes
// them.
func ehBenchValues() [][]byte { return newBenchEvents().values }

// ehBatch sends values in one azeventhubs batch, to partition pid when it
// is not "".
func ehBatch(ctx context.Context, p *azeventhubs.ProducerClient, pid string, values [][]byte) error {
	var opts *azeventhubs.EventDataBatchOptions
	if pid != "" {
		opts = &azeventhubs.EventDataBatchOptions{PartitionID: &pid}
	}
	batch, err := p.NewEventDataBatch(ctx, opts)
	if err != nil {
		return fmt.Errorf("new batch: %w", err)
	}
	for _, v := range values {
		if err := batch.AddEventData(&azeventhubs.EventData{Body: v}, nil); err != nil {
			return fmt.Errorf("add event: %w", err)
		}
	}
	if err := p.SendEventDataBatch(ctx, batch, nil); err != nil {
		return fmt.Errorf("send batch: %w", err)
	}
	return nil
}

// ehBenchProducer is azeventhubs' producer for conn, unchanged.
func ehBenchProducer(b *testing.B, conn string) *azeventhubs.ProducerClient {
	p, err := azeventhubs.NewProducerClientFromConnectionString(conn, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close(context.Background()) })
	return p
}

// benchEHSend: the SDK's SendEventDataBatch of 1,000 events against
// franz-go's ProduceSync of the same values through the Kafka endpoint.
func benchEHSend(b *testing.B) {
	eh := newEHBench(b)
	values := ehBenchValues()
	p := ehBenchProducer(b, eh.src.AccessKeys.PrimaryConnectionString)
	k := eh.src.kafka(b)
	recs := make([]*kgo.Record, len(values))
	amqp := func() int {
		if err := ehBatch(b.Context(), p, "", values); err != nil {
			b.Fatal(err)
		}
		return len(values)
	}
	kafka := func() int {
		for i, v := range values {
			recs[i] = &kgo.Record{Value: v}
		}
		if err := k.ProduceSync(b.Context(), recs...).FirstErr(); err != nil {
			b.Fatalf("kafka produce: %v", err)
		}
		return len(recs)
	}
	ehPair(b, amqp, kafka)
}

// ehFillBatches is how many batches benchEHReceive reads over and over:
// both sides start again from the beginning when they reach the end.
const ehFillBatches = 50

// benchEHReceive fills partition 0 with ehFillBatches batches, then reads
// them with the SDK's PartitionClient (ReceiveEvents of 1,000, default
// prefetch) against a franz-go consumer of the same partition through the
// Kafka endpoint, each side starting again from the earliest event when it
// has read them all (a new PartitionClient; a rewind of the consumer).
func benchEHReceive(b *testing.B) {
	eh := newEHBench(b)
	values := ehBenchValues()
	p := ehBenchProducer(b, eh.src.AccessKeys.PrimaryConnectionString)
	for range ehFillBatches {
		if err := ehBatch(b.Context(), p, "0", values); err != nil {
			b.Fatal(err)
		}
	}
	total := ehFillBatches * len(values)
	amqp := ehPartitionReader(b, eh.dst.AccessKeys.PrimaryConnectionString, total)
	kafka := ehKafkaReader(b, eh.dst, total)
	ehPair(b, amqp, kafka)
}

// ehPartitionReader reads partition 0 in ReceiveEvents calls of benchBatch.
func ehPartitionReader(b *testing.B, conn string, total int) func() int {
	cc, err := azeventhubs.NewConsumerClientFromConnectionString(conn, "", azeventhubs.DefaultConsumerGroup, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cc.Close(context.Background()) })
	var pc *azeventhubs.PartitionClient
	read := 0
	return func() int {
		if pc == nil {
			if pc, err = cc.NewPartitionClient("0", &azeventhubs.PartitionClientOptions{
				StartPosition: azeventhubs.StartPosition{Earliest: to(true)}, Prefetch: 1000}); err != nil {
				b.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(b.Context(), 30*time.Second)
		defer cancel()
		evs, err := pc.ReceiveEvents(ctx, benchBatch, nil)
		if err != nil {
			b.Fatalf("receive after %d events: %v", read, err)
		}
		if read += len(evs); read >= total {
			pc.Close(ctx)
			pc, read = nil, 0
		}
		return len(evs)
	}
}

// ehKafkaReader reads partition 0 with a franz-go consumer holding the
// destination's string, up to benchBatch records a poll.
func ehKafkaReader(b *testing.B, dst connectionJSON, total int) func() int {
	start := map[string]map[int32]kgo.Offset{dst.EventHubName: {0: kgo.NewOffset().At(0)}}
	k := dst.kafka(b, kgo.ConsumePartitions(start), kgo.FetchMaxWait(250*time.Millisecond))
	rewind := map[string]map[int32]kgo.EpochOffset{dst.EventHubName: {0: {Epoch: -1, Offset: 0}}}
	read := 0
	return func() int {
		ctx, cancel := context.WithTimeout(b.Context(), 30*time.Second)
		defer cancel()
		fs := k.PollRecords(ctx, benchBatch)
		if err := fs.Err0(); err != nil {
			b.Fatalf("kafka fetch after %d records: %v", read, err)
		}
		n := fs.NumRecords()
		if read += n; read >= total {
			k.SetOffsets(rewind)
			read = 0
		}
		return n
	}
}

// ehPair runs the AMQP side and the Kafka side in turns of benchTurn, as
// benchPair does, each operation returning how many events it moved. It
// reports both sides' events/s and the median over the rounds of the
// AMQP side's share of the Kafka side's (amqp/kafka-%).
func ehPair(b *testing.B, amqp, kafka func() int) {
	sides := [2]func() int{amqp, kafka}
	for _, op := range sides {
		op() // warm: connections, links, metadata
	}
	var took [2]time.Duration
	var events [2]int
	var ratios []float64
	for b.Loop() {
		var rate [2]float64
		for k, op := range sides {
			start, n := time.Now(), 0
			for time.Since(start) < benchTurn {
				n += op()
			}
			d := time.Since(start)
			took[k] += d
			events[k] += n
			rate[k] = float64(n) / d.Seconds()
		}
		ratios = append(ratios, rate[0]/rate[1])
	}
	slices.Sort(ratios)
	b.ReportMetric(float64(events[0])/took[0].Seconds(), "amqp-events/s")
	b.ReportMetric(float64(events[1])/took[1].Seconds(), "kafka-events/s")
	b.ReportMetric(100*ratios[len(ratios)/2], "amqp/kafka-%")
}
