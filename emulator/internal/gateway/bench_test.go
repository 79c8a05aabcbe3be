package gateway

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// BenchmarkGatewayRatio produces the same records (1,000 per iteration,
// 200 B each) straight into kfake and through the gateway with SASL PLAIN,
// and consumes them back both ways, printing throughput and the ratios.
func BenchmarkGatewayRatio(b *testing.B) {
	var viaP, rawP, viaC, rawC float64
	b.Run("produce/gateway", func(b *testing.B) { viaP = benchProduce(b, true) })
	b.Run("produce/direct", func(b *testing.B) { rawP = benchProduce(b, false) })
	b.Run("consume/gateway", func(b *testing.B) { viaC = benchConsume(b, true) })
	b.Run("consume/direct", func(b *testing.B) { rawC = benchConsume(b, false) })
	if viaP == 0 || rawP == 0 || viaC == 0 || rawC == 0 {
		b.Fatal("a side did not run (see its failure above)")
	}
	fmt.Printf("gateway produce: %.0f records/s, direct %.0f records/s, ratio %.1f%%\n", viaP, rawP, 100*viaP/rawP)
	fmt.Printf("gateway consume: %.0f records/s, direct %.0f records/s, ratio %.1f%%\n", viaC, rawC, 100*viaC/rawC)
}

const benchBatch = 1000

func benchClient(b *testing.B, e *env, via bool, opts ...kgo.Opt) *kgo.Client {
	if via {
		return e.client(e.grant("bench", testTopic, "bench-"), opts...)
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(e.cluster.ListenAddrs()...)}, opts...)...)
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

// benchProduce returns records/s of b.N synchronous batches.
func benchProduce(b *testing.B, via bool) float64 {
	e := newEnv(b)
	cl := benchClient(b, e, via)
	ctx := context.Background()
	recs := benchRecords()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			b.Fatal(err)
		}
	}
	return float64(b.N*benchBatch) / time.Since(start).Seconds()
}

// benchConsume returns records/s reading b.N batches back.
func benchConsume(b *testing.B, via bool) float64 {
	e := newEnv(b)
	ctx := context.Background()
	p := benchClient(b, e, false)
	recs := benchRecords()
	for range b.N {
		if err := p.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			b.Fatal(err)
		}
	}
	cl := benchClient(b, e, via, kgo.ConsumeTopics(testTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	b.ResetTimer()
	start := time.Now()
	for n := 0; n < b.N*benchBatch; {
		f := cl.PollFetches(ctx)
		if err := f.Err0(); err != nil {
			b.Fatal(err)
		}
		n += f.NumRecords()
	}
	return float64(b.N*benchBatch) / time.Since(start).Seconds()
}
