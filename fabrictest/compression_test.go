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

// compressedValue is the JSON value of event seq of a producer: its codec,
// route and sequence number, and a pad that compresses well (franz-go
// sends a batch uncompressed when compressing does not make it smaller).
func compressedValue(codec, route string, seq int) map[string]any {
	return map[string]any{"codec": codec, "route": route, "seq": seq,
		"pad": strings.Repeat(codec+"-"+route+" ", 20)}
}

// deployCompressionStream deploys a CustomEndpoint source into the
// DefaultStream and a Lakehouse destination that commits every row.
func deployCompressionStream(env *fabrictest.Env, name string) (fabrictest.Eventstream, fabrictest.Table, fabrictest.Connection) {
	ws := env.Workspace(name)
	lh := ws.Lakehouse("lh")
	es := ws.DeployEventstream("codecs", map[string]any{
		"sources": []any{map[string]any{"name": "app", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{map[string]any{"name": "s", "type": "DefaultStream", "properties": map[string]any{},
			"inputNodes": []any{map[string]any{"name": "app"}}}},
		"destinations": []any{map[string]any{"name": "lake", "type": "Lakehouse", "inputNodes": []any{map[string]any{"name": "s"}},
			"properties": map[string]any{"workspaceId": ws.ID, "itemId": lh.ID, "deltaTable": "events", "minimumRows": 1}}},
	})
	return es, lh.Table("events"), es.SourceConnection(es.Topology().Source("app").ID)
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
	g := NewWithT(t)
	env := fabrictest.Start(t, fabrictest.WithPartitions(len(codecs)*len(compressionRoutes)))
	es, table, conn := deployCompressionStream(env, "compression")
	src := es.Resolve()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	var want []map[string]any
	wantPartition := map[int32]uint8{}
	for i, c := range codecs {
		for j, route := range compressionRoutes {
			part := int32(i*len(compressionRoutes) + j)
			opts := []kgo.Opt{kgo.SeedBrokers(src.Brokers()...)}
			if route == "endpoint" {
				opts = conn.KafkaOpts()
			}
			produceCompressed(ctx, t, append(opts, kgo.DefaultProduceTopic(conn.EventHubName)), c, route, part)
			wantPartition[part] = c.id
			for seq := range compressionEvents {
				want = append(want, compressedValue(c.name, route, seq))
			}
		}
	}

	b := &batchCodecs{seen: map[int32]map[uint8]int{}}
	got := readCompressed(ctx, t, src.Brokers(), src.Topic, len(want), b)
	g.Expect(got).To(HaveLen(len(want)))
	for part, id := range wantPartition {
		g.Expect(b.seen[part]).To(HaveLen(1), "partition %d: batches of one codec", part)
		g.Expect(b.seen[part]).To(HaveKey(id), "partition %d: batches stored with codec %d", part, id)
	}

	consumed := es.Consume(fabrictest.ConsumeTimeout(5 * time.Second))
	g.Expect(consumed).To(fabrictest.HaveRecordCount(len(want)))
	for _, r := range consumed {
		var v map[string]any
		g.Expect(r.DecodeValue(&v)).To(Succeed())
		c, route := v["codec"].(string), v["route"].(string)
		g.Expect(string(r.Key)).To(Equal(fmt.Sprintf("%s-%s-%v", c, route, v["seq"])))
		g.Expect(r.Partition).To(Equal(partitionOf(c, route)), "record %s", r)
	}
	wantValues := make([]any, len(want))
	for i, w := range want {
		wantValues[i] = w
	}
	g.Expect(consumed).To(fabrictest.HaveRecordsWithValues(wantValues...))

	g.Eventually(table.TrySnapshot).WithTimeout(30 * time.Second).Should(fabrictest.HaveDeltaRows(len(want)))
	g.Expect(table.Rows()).To(fabrictest.HaveRowsMatching(want...))
}

// partitionOf is the partition the producer of codec and route writes to.
func partitionOf(codecName, route string) int32 {
	for i, c := range codecs {
		for j, r := range compressionRoutes {
			if c.name == codecName && r == route {
				return int32(i*len(compressionRoutes) + j)
			}
		}
	}
	return -1
}

// produceCompressed sends compressionEvents events with codec c to
// partition part, all before waiting for any (so batches hold several),
// and checks the client wrote its batches compressed with c.
func produceCompressed(ctx context.Context, t *testing.T, opts []kgo.Opt, c codec, route string, part int32) {
	t.Helper()
	written := &producedCodecs{seen: map[uint8]int{}}
	cl, err := kgo.NewClient(append(opts, kgo.ProducerBatchCompression(c.kgo), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(50*time.Millisecond), kgo.WithHooks(written))...)
	if err != nil {
		t.Fatalf("%s producer (%s): %v", c.name, route, err)
	}
	defer cl.Close()
	var wg sync.WaitGroup
	errs := make(chan error, compressionEvents)
	for seq := range compressionEvents {
		v, _ := json.Marshal(compressedValue(c.name, route, seq))
		wg.Add(1)
		cl.Produce(ctx, &kgo.Record{Key: fmt.Appendf(nil, "%s-%s-%d", c.name, route, seq), Value: v, Partition: part},
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
		t.Fatalf("%s producer (%s): %v", c.name, route, err)
	}
	written.mu.Lock()
	defer written.mu.Unlock()
	if len(written.seen) != 1 || written.seen[c.id] == 0 {
		t.Fatalf("%s producer (%s) wrote batches with codecs %v, want only %d", c.name, route, written.seen, c.id)
	}
}

// producedCodecs records the compression of every batch a producer wrote
// (kgo.HookProduceBatchWritten).
type producedCodecs struct {
	mu   sync.Mutex
	seen map[uint8]int
}

func (p *producedCodecs) OnProduceBatchWritten(_ kgo.BrokerMetadata, _ string, _ int32, m kgo.ProduceBatchMetrics) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen[m.CompressionType]++
}

// readCompressed reads n records of topic straight from the broker, noting
// the codec of each batch in b.
func readCompressed(ctx context.Context, t *testing.T, brokers []string, topic string, n int, b *batchCodecs) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.WithHooks(b))
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
