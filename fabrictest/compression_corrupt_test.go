package fabrictest_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// garbageGzip is a producer's compressor that flags every batch gzip and
// sends bytes that are not gzip: the batch's CRC is right, its records
// cannot be read.
type garbageGzip struct{}

func (garbageGzip) Compress(_ *bytes.Buffer, src []byte, _ ...kgo.CompressFlag) ([]byte, kgo.CompressionCodecType) {
	return bytes.Repeat([]byte{0x5a}, len(src)/2), kgo.CodecGzip // shorter, or the client sends src
}

// TestCorruptCompressedBatchRefused: a batch flagged gzip whose records do
// not decompress is refused with what Apache Kafka 3.9 answers for it,
// UNKNOWN_SERVER_ERROR, through the custom endpoint and straight to the
// broker alike: the endpoint forwards it as sent and the broker refuses it
// (Apache Kafka with -tags container; untagged the embedded broker, which
// is given Apache Kafka's check: without it such a batch reached the topic
// and every reader of its partition failed, the consume route with 502).
// Nothing of it reaches the topic; a good producer on the same connection
// string still delivers, and the topic reads on.
func TestCorruptCompressedBatchRefused(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	cs := deployCompressionStream(env, "corrupt")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	routes := map[string][]kgo.Opt{
		"endpoint": cs.src.KafkaOpts(),
		"broker":   {kgo.SeedBrokers(cs.es.Resolve().Brokers()...)},
	}
	for route, opts := range routes {
		bad, err := kgo.NewClient(append(opts, kgo.DefaultProduceTopic(cs.src.EventHubName),
			kgo.WithCompressor(garbageGzip{}), kgo.RecordRetries(0), kgo.DisableIdempotentWrite())...)
		g.Expect(err).NotTo(HaveOccurred())
		err = bad.ProduceSync(ctx, &kgo.Record{Key: []byte("bad"), Value: []byte(`{"n":0}`)}).FirstErr()
		bad.Close()
		t.Logf("corrupt batch, %s: %v", route, err)
		g.Expect(err).To(MatchError(kerr.UnknownServerError), route)
	}

	good, err := kgo.NewClient(append(cs.src.KafkaOpts(), kgo.DefaultProduceTopic(cs.src.EventHubName),
		kgo.ProducerBatchCompression(kgo.GzipCompression()))...)
	g.Expect(err).NotTo(HaveOccurred())
	defer good.Close()
	g.Expect(good.ProduceSync(ctx, &kgo.Record{Key: []byte("good"), Value: []byte(`{"n":1}`)}).FirstErr()).To(Succeed())

	g.Expect(cs.es.Consume(fabrictest.ConsumeTimeout(5 * time.Second))).To(fabrictest.HaveRecordsWithValues(`{"n":1}`))
	g.Eventually(cs.table.TrySnapshot).WithTimeout(30 * time.Second).Should(fabrictest.HaveDeltaRows(1))
}
