package gateway

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// BenchmarkGatewayRatio compares the gateway (SASL PLAIN) with franz-go
// straight to kfake, on the same cluster with the same client settings,
// producing and consuming batches of 1,000 records of 200 B. The two sides
// alternate within each run, so both see the same load of the machine,
// and each run reports both throughputs and the ratio (gateway/direct-%);
// -benchtime 1s is a second or more of work per run.
func BenchmarkGatewayRatio(b *testing.B) {
	b.Run("produce", benchProduce)
	b.Run("consume", benchConsume)
}

const benchBatch = 1000

// benchClient is a client of the gateway (via) or of kfake itself, with
// the same settings but for the gateway's SASL.
func benchClient(b *testing.B, e *env, via bool, opts ...kgo.Opt) *kgo.Client {
	if via {
		return e.client(e.grant("bench", testTopic, "bench-"), opts...)
	}
	base := []kgo.Opt{
		kgo.SeedBrokers(e.cluster.ListenAddrs()...),
		kgo.FetchMaxWait(200 * time.Millisecond),
		kgo.RetryTimeout(5 * time.Second),
		kgo.RecordDeliveryTimeout(10 * time.Second),
	}
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cl.Close)
	return cl
}

func benchRecords() []*kgo.Record {
	recs := make([]*kgo.Record, benchBatch)
	for i := range recs {
		recs[i] = &kgo.Record{Topic: testTopic, Value: fmt.Appendf(make([]byte, 0, 200), "%0200d", i)}
	}
	return recs
}

// report reports records/s of each side and their ratio.
func report(b *testing.B, records int, via, direct time.Duration) {
	b.ReportMetric(float64(records)/via.Seconds(), "gateway-records/s")
	b.ReportMetric(float64(records)/direct.Seconds(), "direct-records/s")
	b.ReportMetric(100*direct.Seconds()/via.Seconds(), "gateway/direct-%")
}

// benchProduce produces b.N synchronous batches each way, one after the
// other, the side going first changing every batch.
func benchProduce(b *testing.B) {
	e := newEnv(b)
	clients := [2]*kgo.Client{benchClient(b, e, true), benchClient(b, e, false)}
	ctx := context.Background()
	recs := benchRecords()
	produce := func(cl *kgo.Client) time.Duration {
		start := time.Now()
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for _, cl := range clients { // connect and learn the metadata first
		produce(cl)
	}
	var took [2]time.Duration
	b.ResetTimer()
	for i := range b.N {
		for j := range 2 {
			side := (i + j) % 2
			took[side] += produce(clients[side])
		}
	}
	report(b, b.N*benchBatch, took[0], took[1])
}

// benchConsume produces b.N batches, then reads them all back each way
// in up to four turns each, the sides alternating (a consumer waiting for its
// turn holds at most the one fetch it had in flight).
func benchConsume(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	p := benchClient(b, e, false)
	recs := benchRecords()
	for range b.N {
		if err := p.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			b.Fatal(err)
		}
	}
	opts := []kgo.Opt{kgo.ConsumeTopics(testTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}
	clients := [2]*kgo.Client{benchClient(b, e, true, opts...), benchClient(b, e, false, opts...)}
	total := b.N * benchBatch
	turns := min(b.N, 4)
	var took [2]time.Duration
	var read [2]int
	b.ResetTimer()
	for t := range turns {
		for j := range 2 {
			side := (t + j) % 2
			want := total * (t + 1) / turns
			start := time.Now()
			for read[side] < want {
				f := clients[side].PollFetches(ctx)
				if err := f.Err0(); err != nil {
					b.Fatal(err)
				}
				read[side] += f.NumRecords()
			}
			took[side] += time.Since(start)
		}
	}
	report(b, total, took[0], took[1])
}
