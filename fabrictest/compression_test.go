package fabrictest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// codec is one of Kafka's batch compression codecs: its name in
// compression.type, franz-go's codec and the number a record batch's
// attributes carry for it.
type codec struct {
	name string
	kgo  kgo.CompressionCodec
	id   uint8
}

// codecs are the four codecs Apache Kafka's producers offer.
var codecs = []codec{
	{"gzip", kgo.GzipCompression(), 1},
	{"snappy", kgo.SnappyCompression(), 2},
	{"lz4", kgo.Lz4Compression(), 3},
	{"zstd", kgo.ZstdCompression(), 4},
}

// compressionRoutes are the two ways a Kafka producer reaches an
// Eventstream: straight to the broker the resolve route names, or through
// the custom endpoint's connection string.
var compressionRoutes = []string{"direct", "endpoint"}

// compressionEvents is how many events each producer sends.
const compressionEvents = 25

// compressionJob is one producer of a compression test: a client, a codec
// and a route, writing compressionEvents events to a partition of its own.
type compressionJob struct {
	client string
	codec  codec
	route  string
	part   int32
}

// addJobs appends to jobs one job of client per codec and route (both
// routes when none is given), each with a partition of its own.
func addJobs(jobs []compressionJob, client string, routes ...string) []compressionJob {
	if len(routes) == 0 {
		routes = compressionRoutes
	}
	for _, c := range codecs {
		for _, r := range routes {
			jobs = append(jobs, compressionJob{client: client, codec: c, route: r, part: int32(len(jobs))})
		}
	}
	return jobs
}

// key is the key of event seq.
func (j compressionJob) key(seq int) string {
	return fmt.Sprintf("%s-%s-%s-%d", j.client, j.codec.name, j.route, seq)
}

// value is the JSON value of event seq: the producer's client, codec,
// route and sequence number, and a pad that compresses well (producers
// send a batch uncompressed when compressing does not make it smaller).
func (j compressionJob) value(seq int) map[string]any {
	return map[string]any{"client": j.client, "codec": j.codec.name, "route": j.route, "seq": seq,
		"pad": strings.Repeat(j.codec.name+"-"+j.route+" ", 20)}
}

// compressionStream is an Eventstream with a CustomEndpoint source, a
// Lakehouse destination that commits every row and a CustomEndpoint
// destination, and the connections of both endpoints.
type compressionStream struct {
	es    fabrictest.Eventstream
	table fabrictest.Table
	src   fabrictest.Connection // the source's: producers
	dst   fabrictest.Connection // the destination's: consumers in $Default
}

func deployCompressionStream(env *fabrictest.Env, name string) compressionStream {
	ws := env.Workspace(name)
	lh := ws.Lakehouse("lh")
	es := ws.DeployEventstream("codecs", map[string]any{
		"sources": []any{map[string]any{"name": "app", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{map[string]any{"name": "s", "type": "DefaultStream", "properties": map[string]any{},
			"inputNodes": []any{map[string]any{"name": "app"}}}},
		"destinations": []any{
			map[string]any{"name": "lake", "type": "Lakehouse", "inputNodes": []any{map[string]any{"name": "s"}},
				"properties": map[string]any{"workspaceId": ws.ID, "itemId": lh.ID, "deltaTable": "events", "minimumRows": 1}},
			map[string]any{"name": "out", "type": "CustomEndpoint", "inputNodes": []any{map[string]any{"name": "s"}},
				"properties": map[string]any{}},
		},
	})
	topo := es.Topology()
	return compressionStream{es: es, table: lh.Table("events"),
		src: es.SourceConnection(topo.Source("app").ID), dst: es.DestinationConnection(topo.Destination("out").ID)}
}

// batchCodecs records, per partition, the compression of every record
// batch a consumer fetched (kgo.HookFetchBatchRead).
type batchCodecs struct {
	mu   sync.Mutex
	seen map[int32]map[uint8]int
}

func (b *batchCodecs) OnFetchBatchRead(_ kgo.BrokerMetadata, _ string, partition int32, m kgo.FetchBatchMetrics) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seen[partition] == nil {
		b.seen[partition] = map[uint8]int{}
	}
	b.seen[partition][m.CompressionType]++
}

// TestCompressedProducers: franz-go producers with gzip, snappy, lz4 and
// zstd (kgo.ProducerBatchCompression), each straight to the broker and
// through the custom endpoint, deliver every event, with its key and JSON
// value, to the Lakehouse table and to the consume route. Each producer
// writes to a partition of its own, and a consumer reading the broker finds
// each partition's batches stored with that producer's codec: the gateway
// forwards the batches as the client compressed them, and the broker (the
// embedded one untagged, Apache Kafka with -tags container) and the
// emulator's readers decompress them.
func TestCompressedProducers(t *testing.T) {
	t.Parallel()
	jobs := addJobs(nil, "franz-go")
	env := fabrictest.Start(t, fabrictest.WithPartitions(len(jobs)))
	cs := deployCompressionStream(env, "compression")
	src := cs.es.Resolve()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for _, j := range jobs {
		opts := []kgo.Opt{kgo.SeedBrokers(src.Brokers()...)}
		if j.route == "endpoint" {
			opts = cs.src.KafkaOpts()
		}
		produceCompressed(ctx, t, append(opts, kgo.DefaultProduceTopic(cs.src.EventHubName)), j)
	}
	checkCompressed(ctx, t, cs, jobs)
}

// checkCompressed reads the Eventstream's topic straight from the broker
// and through the CustomEndpoint destination, and finds each job's
// partition stored with its codec alone both ways (the gateway forwards
// fetched batches as they are); then finds every job's events, keys and
// values, in the consume route (in the job's partition) and in the
// Lakehouse table.
func checkCompressed(ctx context.Context, t *testing.T, cs compressionStream, jobs []compressionJob) {
	t.Helper()
	g := NewWithT(t)
	var want []map[string]any
	byKey := map[string]int32{}
	for _, j := range jobs {
		for seq := range compressionEvents {
			want = append(want, j.value(seq))
			byKey[j.key(seq)] = j.part
		}
	}
	src := cs.es.Resolve()
	direct := &batchCodecs{seen: map[int32]map[uint8]int{}}
	g.Expect(readCompressed(ctx, t, src.Topic, len(want), direct, kgo.SeedBrokers(src.Brokers()...))).To(HaveLen(len(want)))
	viaEndpoint := &batchCodecs{seen: map[int32]map[uint8]int{}}
	g.Expect(readCompressed(ctx, t, cs.dst.EventHubName, len(want), viaEndpoint, append(cs.dst.KafkaOpts(),
		kgo.ConsumerGroup(cs.dst.ConsumerGroupName))...)).To(HaveLen(len(want)))
	for _, j := range jobs {
		for how, b := range map[string]*batchCodecs{"from the broker": direct, "through the endpoint": viaEndpoint} {
			g.Expect(b.seen[j.part]).To(Equal(map[uint8]int{j.codec.id: b.seen[j.part][j.codec.id]}),
				"%s %s %s: partition %d's batches, read %s, with codec %d alone", j.client, j.codec.name, j.route, j.part, how, j.codec.id)
		}
	}

	consumed := cs.es.Consume(fabrictest.ConsumeTimeout(5 * time.Second))
	g.Expect(consumed).To(fabrictest.HaveRecordCount(len(want)))
	for _, r := range consumed {
		part, ok := byKey[string(r.Key)]
		g.Expect(ok).To(BeTrue(), "record %s: a key no producer sent", r)
		g.Expect(r.Partition).To(Equal(part), "record %s", r)
	}
	wantValues := make([]any, len(want))
	for i, w := range want {
		wantValues[i] = w
	}
	g.Expect(consumed).To(fabrictest.HaveRecordsWithValues(wantValues...))

	g.Eventually(cs.table.TrySnapshot).WithTimeout(30 * time.Second).Should(fabrictest.HaveDeltaRows(len(want)))
	g.Expect(cs.table.Rows()).To(fabrictest.HaveRowsMatching(want...))
}

// produceCompressed sends the job's events with its codec to its
// partition, all before waiting for any (so batches hold several), and
// checks the client wrote its batches compressed with that codec.
func produceCompressed(ctx context.Context, t *testing.T, opts []kgo.Opt, j compressionJob) {
	t.Helper()
	written := &producedCodecs{seen: map[uint8]int{}}
	cl, err := kgo.NewClient(append(opts, kgo.ProducerBatchCompression(j.codec.kgo), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(50*time.Millisecond), kgo.WithHooks(written))...)
	if err != nil {
		t.Fatalf("%s producer (%s): %v", j.codec.name, j.route, err)
	}
	defer cl.Close()
	var wg sync.WaitGroup
	errs := make(chan error, compressionEvents)
	for seq := range compressionEvents {
		v, _ := json.Marshal(j.value(seq))
		wg.Add(1)
		cl.Produce(ctx, &kgo.Record{Key: []byte(j.key(seq)), Value: v, Partition: j.part},
			func(_ *kgo.Record, err error) {
				defer wg.Done()
				if err != nil {
					errs <- err
				}
			})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("%s producer (%s): %v", j.codec.name, j.route, err)
	}
	// franz-go calls the hook from a goroutine of its own, after the
	// promises: wait for it to have seen every record.
	deadline := time.Now().Add(10 * time.Second)
	for written.count() < compressionEvents && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	written.mu.Lock()
	defer written.mu.Unlock()
	if len(written.seen) != 1 || written.seen[j.codec.id] != compressionEvents {
		t.Fatalf("%s producer (%s) wrote batches with codecs %v (records by codec), want only %d", j.codec.name, j.route, written.seen, j.codec.id)
	}
}

// producedCodecs counts the records of the batches a producer wrote, by
// their compression (kgo.HookProduceBatchWritten).
type producedCodecs struct {
	mu   sync.Mutex
	seen map[uint8]int
}

func (p *producedCodecs) OnProduceBatchWritten(_ kgo.BrokerMetadata, _ string, _ int32, m kgo.ProduceBatchMetrics) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen[m.CompressionType] += m.NumRecords
}

func (p *producedCodecs) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.seen {
		n += c
	}
	return n
}

// readCompressed reads n records of topic with a
// consumer configured by opts (seed brokers, SASL, group), from the start,
// noting the codec of each batch in b.
func readCompressed(ctx context.Context, t *testing.T, topic string, n int, b *batchCodecs, opts ...kgo.Opt) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(append(opts, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.WithHooks(b))...)
	if err != nil {
		t.Fatalf("consumer: %v", err)
	}
	defer cl.Close()
	var got []*kgo.Record
	for len(got) < n {
		f := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records: %v", len(got), n, ctx.Err())
		}
		if errs := f.Errors(); len(errs) > 0 {
			t.Fatalf("fetch: %v", errs[0].Err)
		}
		got = append(got, f.Records()...)
	}
	return got
}
