package gateway

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// BenchmarkGatewayRatio compares the gateway (SASL PLAIN) with franz-go
// straight to kfake, on the same cluster with the same client settings,
// producing and consuming batches of 1,000 records of 200 B. The cluster
// checks compressed batches as the emulator's embedded broker does
// (newEnv), for both sides alike. The two sides alternate within each
// run, so both see the same load of the machine, and each run reports both
// throughputs and the ratio (gateway/direct-%, the median of the
// iterations'); -benchtime 1s is a second or more of work per run.
func BenchmarkGatewayRatio(b *testing.B) {
	b.Run("produce", benchProduce)
	b.Run("consume", benchConsume)
	b.Run("single", benchSingle)
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

// pairs times the two sides of each iteration: gateway (side 0) and
// direct (side 1), the side going first changing every iteration.
type pairs struct {
	took  [2]time.Duration
	ratio []float64 // per iteration: direct time / gateway time
}

// run runs side fn's of one iteration i and records their times.
func (p *pairs) run(i int, fn func(side int)) {
	var t [2]time.Duration
	for j := range 2 {
		side := (i + j) % 2
		start := time.Now()
		fn(side)
		t[side] = time.Since(start)
	}
	p.took[0] += t[0]
	p.took[1] += t[1]
	p.ratio = append(p.ratio, t[1].Seconds()/t[0].Seconds())
}

// report reports records/s of each side over the run, and the median of
// the iterations' ratios as gateway/direct-%: the two sides of an
// iteration run within milliseconds of each other, so the median leaves
// out the iterations a burst of the machine's other load fell on.
func (p *pairs) report(b *testing.B, records int) {
	b.ReportMetric(float64(records)/p.took[0].Seconds(), "gateway-records/s")
	b.ReportMetric(float64(records)/p.took[1].Seconds(), "direct-records/s")
	slices.Sort(p.ratio)
	b.ReportMetric(100*p.ratio[len(p.ratio)/2], "gateway/direct-%")
}

// benchProduce produces b.N synchronous batches each way, one after the
// other, the side going first changing every batch.
func benchProduce(b *testing.B) {
	e := newEnv(b)
	clients := [2]*kgo.Client{benchClient(b, e, true), benchClient(b, e, false)}
	ctx := context.Background()
	recs := benchRecords()
	produce := func(cl *kgo.Client) {
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			b.Fatal(err)
		}
	}
	for _, cl := range clients { // connect and learn the metadata first
		produce(cl)
	}
	var p pairs
	b.ResetTimer()
	for i := range b.N {
		p.run(i, func(side int) { produce(clients[side]) })
	}
	p.report(b, b.N*benchBatch)
}

// singleProducers is how many producers benchSingle runs at once.
const singleProducers = 32

// benchSingle: singleProducers producers, each a client of its own sending
// one record per ProduceSync (so each call is a Produce request of one
// record), all at once; an iteration is one such round through the
// gateway and one straight to kfake, the side going first changing every
// iteration.
func benchSingle(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	var clients [2][singleProducers]*kgo.Client
	for side, via := range []bool{true, false} {
		for i := range singleProducers {
			clients[side][i] = benchClient(b, e, via, kgo.ProducerLinger(0))
		}
	}
	value := fmt.Appendf(nil, "%0200d", 0)
	round := func(side int) {
		errs := make(chan error, singleProducers)
		for _, cl := range clients[side] {
			go func() { errs <- cl.ProduceSync(ctx, &kgo.Record{Topic: testTopic, Value: value}).FirstErr() }()
		}
		for range singleProducers {
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		}
	}
	round(0) // connect and learn the metadata first
	round(1)
	var p pairs
	b.ResetTimer()
	for i := range b.N {
		p.run(i, round)
	}
	p.report(b, b.N*singleProducers)
}

// consumeBatches is the data set benchConsume reads, over and over:
// 200,000 records.
const consumeBatches = 200

// benchPartBytes is the most a fetch takes of a partition: with these
// well-compressed records a fetch is about 7,000 records, so the sides
// alternate a hundred times a second (kgo's default of 1 MiB makes one
// fetch about 100,000 records, a tenth of a second of decoding, and a
// comparison at that grain is at the mercy of the machine's other load).
const benchPartBytes = 64 << 10

// benchConsume produces consumeBatches batches once; each iteration
// fetches the next records once each way, the side going first changing
// every iteration, and decodes them as a franz-go consumer does
// (kgo.ProcessFetchPartition). A side that reaches the end starts again.
func benchConsume(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	prod := benchClient(b, e, false)
	recs := benchRecords()
	for range consumeBatches {
		if err := prod.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			b.Fatal(err)
		}
	}
	// Fetch v12 names topics, as the requests below do (v13 on use ids).
	versions := kversion.Stable()
	versions.SetMaxKeyVersion(int16(kmsg.Fetch), 12)
	sides := [2]*fetcher{
		{cl: benchClient(b, e, true, kgo.MaxVersions(versions))},
		{cl: benchClient(b, e, false, kgo.MaxVersions(versions))},
	}
	for _, f := range sides { // connect (and authenticate) first
		f.fetch(b)
	}
	var p pairs
	var read [2]int
	b.ResetTimer()
	for i := range b.N {
		p.run(i, func(side int) { read[side] += sides[side].fetch(b) })
	}
	if read[0] != read[1] {
		b.Fatalf("read %d records through the gateway and %d direct, want the same", read[0], read[1])
	}
	p.report(b, read[0])
}

// clientDecompressor is the one a franz-go consumer uses.
var clientDecompressor = kgo.DefaultDecompressor()

// fetcher reads testTopic's partitions in order, one fetch at a time.
type fetcher struct {
	cl   *kgo.Client
	next [2]int64
}

// fetch fetches once from where the last fetch ended and returns how many
// records it decoded.
func (f *fetcher) fetch(b *testing.B) int {
	req := kmsg.NewPtrFetchRequest()
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes = 200, 1, 50<<20
	t := kmsg.NewFetchRequestTopic()
	t.Topic = testTopic
	for p := range f.next {
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = int32(p), f.next[p], benchPartBytes
		t.Partitions = append(t.Partitions, rp)
	}
	req.Topics = append(req.Topics, t)
	resp, err := f.cl.Broker(0).Request(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, rt := range resp.(*kmsg.FetchResponse).Topics {
		for i := range rt.Partitions {
			rp := &rt.Partitions[i]
			fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
				Topic: testTopic, Partition: rp.Partition, Offset: f.next[rp.Partition], IsolationLevel: kgo.ReadUncommitted(),
			}, rp, clientDecompressor, nil)
			if fp.Err != nil {
				b.Fatal(fp.Err)
			}
			n += len(fp.Records)
			if k := len(fp.Records); k > 0 {
				f.next[rp.Partition] = fp.Records[k-1].Offset + 1
			}
			if f.next[rp.Partition] >= rp.HighWatermark {
				f.next[rp.Partition] = 0
			}
		}
	}
	return n
}
