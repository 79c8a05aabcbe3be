package broker

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// signed sets a batch's CRC (CRC-32C of what follows the field), so that
// only its compressed section is wrong.
func signed(raw []byte) []byte {
	binary.BigEndian.PutUint32(raw[17:21], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return raw
}

// garbageGzip is a producer's compressor that flags every batch gzip and
// sends bytes that are not gzip: the batch's CRC is right, its records
// cannot be read.
type garbageGzip struct{}

func (garbageGzip) Compress(_ *bytes.Buffer, src []byte, _ ...kgo.CompressFlag) ([]byte, kgo.CompressionCodecType) {
	return bytes.Repeat([]byte{0x5a}, len(src)/2), kgo.CodecGzip // shorter, or the client sends src
}

// embeddedTopic starts the embedded broker with a topic of n partitions.
func embeddedTopic(t *testing.T, topic string, n int32) *Broker {
	t.Helper()
	b, err := Embedded(EmbeddedConfig{}, WithPartitions(n))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if err := b.CreateTopic(t.Context(), topic); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCorruptBatchRefusedPerPartition: one produce (v11, Apache Kafka
// 3.9's newest) to the embedded broker with a good gzip batch for
// partition 0 and a garbled one for partition 1: partition 0 is appended,
// partition 1 is answered UNKNOWN_SERVER_ERROR with the reason, as Apache
// Kafka 3.9 answers it, and holds nothing; a later good batch to it is
// appended at offset 0.
func TestCorruptBatchRefusedPerPartition(t *testing.T) {
	const topic = "corrupt-partition"
	b := embeddedTopic(t, topic, 2)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Bootstrap()...), kgo.MaxVersions(kversion.V3_9_0()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	produce := func(parts map[int32][]byte) map[int32]kmsg.ProduceResponseTopicPartition {
		t.Helper()
		req := kmsg.NewPtrProduceRequest()
		req.Acks, req.TimeoutMillis = -1, 5000
		rt := kmsg.NewProduceRequestTopic()
		rt.Topic = topic
		for p, raw := range parts {
			rp := kmsg.NewProduceRequestTopicPartition()
			rp.Partition, rp.Records = p, raw
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(t.Context(), cl)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int32]kmsg.ProduceResponseTopicPartition{}
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				got[rp.Partition] = rp
			}
		}
		return got
	}
	good := signed(batch(t, kgo.GzipCompression(), 5, false))
	got := produce(map[int32][]byte{0: good, 1: signed(batch(t, kgo.GzipCompression(), 5, true))})
	if p := got[0]; p.ErrorCode != 0 || p.BaseOffset != 0 {
		t.Fatalf("good partition: code %d, base offset %d", p.ErrorCode, p.BaseOffset)
	}
	p := got[1]
	if p.ErrorCode != kerr.UnknownServerError.Code || p.ErrorMessage == nil || !strings.Contains(*p.ErrorMessage, "decompress gzip batch") {
		t.Fatalf("corrupt partition: code %d, message %v", p.ErrorCode, p.ErrorMessage)
	}
	t.Logf("corrupt partition: %s", *p.ErrorMessage)
	ends := endOffsets(t, b, topic)
	if ends[0] != 5 || ends[1] != 0 {
		t.Fatalf("end offsets %v, want 5 and 0", ends)
	}
	if p := produce(map[int32][]byte{1: signed(batch(t, kgo.GzipCompression(), 5, false))})[1]; p.ErrorCode != 0 || p.BaseOffset != 0 {
		t.Fatalf("good batch after a corrupt one: code %d, base offset %d", p.ErrorCode, p.BaseOffset)
	}
}

// endOffsets lists topic's end offsets by partition.
func endOffsets(t *testing.T, b *Broker, topic string) map[int32]int64 {
	t.Helper()
	listed, err := b.admin.ListEndOffsets(t.Context(), topic)
	if err != nil {
		t.Fatal(err)
	}
	ends := map[int32]int64{}
	listed.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			t.Fatalf("end offset of partition %d: %v", o.Partition, o.Err)
		}
		ends[o.Partition] = o.Offset
	})
	return ends
}

// TestCorruptBatchRefusedDirect: a franz-go producer straight to the
// embedded broker (its newest produce, v13, names topics by ID) whose
// batch is flagged gzip but is not is refused with UNKNOWN_SERVER_ERROR;
// a good gzip producer then delivers, and a consumer reads the partition
// from its start without an error, finding the good record alone.
func TestCorruptBatchRefusedDirect(t *testing.T) {
	const topic = "corrupt-direct"
	b := embeddedTopic(t, topic, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	producer := func(opts ...kgo.Opt) *kgo.Client {
		cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(b.Bootstrap()...), kgo.DefaultProduceTopic(topic)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		return cl
	}
	bad := producer(kgo.WithCompressor(garbageGzip{}), kgo.RecordRetries(0), kgo.DisableIdempotentWrite())
	err := bad.ProduceSync(ctx, &kgo.Record{Value: []byte(strings.Repeat("bad ", 20))}).FirstErr()
	if !errors.Is(err, kerr.UnknownServerError) {
		t.Fatalf("corrupt batch: %v, want UNKNOWN_SERVER_ERROR", err)
	}
	good := producer(kgo.ProducerBatchCompression(kgo.GzipCompression()))
	if err := good.ProduceSync(ctx, &kgo.Record{Value: []byte(strings.Repeat("good ", 20))}).FirstErr(); err != nil {
		t.Fatalf("good batch: %v", err)
	}
	cons, err := kgo.NewClient(kgo.SeedBrokers(b.Bootstrap()...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	fetches := cons.PollFetches(ctx)
	if errs := fetches.Errors(); len(errs) > 0 {
		t.Fatalf("reading the partition: %v", errs[0].Err)
	}
	recs := fetches.Records()
	if len(recs) != 1 || recs[0].Offset != 0 || !strings.HasPrefix(string(recs[0].Value), "good") {
		t.Fatalf("read %d records, want the good one at offset 0: %v", len(recs), recs)
	}
}

// TestOwnProducersTrusted: once a Produce call has run, the batch check
// trusts the writer's producer ID and only it; a garbled batch from
// another client is still refused.
func TestOwnProducersTrusted(t *testing.T) {
	const topic = "own-trusted"
	b := embeddedTopic(t, topic, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := b.Produce(ctx, topic, []*kgo.Record{{Value: []byte("mine")}}); err != nil {
		t.Fatal(err)
	}
	b.writer.mu.Lock()
	id := b.writer.pid
	b.writer.mu.Unlock()
	if id < 0 {
		t.Fatalf("writer's producer ID %d after a call", id)
	}
	b.check.mu.Lock()
	own := maps.Clone(b.check.own)
	b.check.mu.Unlock()
	if len(own) != 1 || !own[id] {
		t.Fatalf("trusted producer IDs %v, want {%d}", own, id)
	}
	bad, err := kgo.NewClient(kgo.SeedBrokers(b.Bootstrap()...), kgo.DefaultProduceTopic(topic),
		kgo.WithCompressor(garbageGzip{}), kgo.RecordRetries(0), kgo.DisableIdempotentWrite())
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	err = bad.ProduceSync(ctx, &kgo.Record{Value: []byte(strings.Repeat("bad ", 20))}).FirstErr()
	if !errors.Is(err, kerr.UnknownServerError) {
		t.Fatalf("another client's corrupt batch: %v, want UNKNOWN_SERVER_ERROR", err)
	}
}
