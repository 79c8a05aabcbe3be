package gateway

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// rawBatch encodes n records as a v2 record batch with its CRC. gzip
// flags it gzip and puts bytes that are not gzip in place of its records.
func rawBatch(n int, gzip bool) []byte {
	var recs []byte
	for i := range n {
		r := kmsg.Record{OffsetDelta: int32(i), Value: []byte(strings.Repeat("value ", 10))}
		r.Length = int32(len(r.AppendTo(nil)) - 1) // the bytes after the (one-byte) length
		recs = r.AppendTo(recs)
	}
	b := kmsg.RecordBatch{Magic: 2, LastOffsetDelta: int32(n - 1), NumRecords: int32(n),
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, Records: recs}
	if gzip {
		b.Attributes, b.Records = int16(kgo.CodecGzip), bytes.Repeat([]byte{0x5a}, len(recs)/2)
	}
	b.Length = int32(len(b.AppendTo(nil)) - 12)
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[17:21], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return raw
}

// TestCorruptBatchRefusedThroughGateway: one produce through the endpoint
// with a good batch for partition 0 and a gzip-flagged batch that is not
// gzip for partition 1. The gateway forwards both as sent; the broker
// behind (here kfake with the embedded broker's check) appends partition
// 0 and answers partition 1 UNKNOWN_SERVER_ERROR with the reason, which
// reaches the client; both partitions then read without an error.
func TestCorruptBatchRefusedThroughGateway(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	cl := e.client(e.grant("k", testTopic, ""))
	req := kmsg.NewPtrProduceRequest()
	req.Acks, req.TimeoutMillis = -1, 5000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = testTopic
	for p, raw := range [][]byte{rawBatch(3, false), rawBatch(3, true)} {
		rp := kmsg.NewProduceRequestTopicPartition()
		rp.Partition, rp.Records = int32(p), raw
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int32]kmsg.ProduceResponseTopicPartition{}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			got[rp.Partition] = rp
		}
	}
	if p := got[0]; p.ErrorCode != 0 || p.BaseOffset != 0 {
		t.Fatalf("good partition: code %d, base offset %d", p.ErrorCode, p.BaseOffset)
	}
	if p := got[1]; p.ErrorCode != kerr.UnknownServerError.Code || p.ErrorMessage == nil || !strings.Contains(*p.ErrorMessage, "decompress gzip batch") {
		t.Fatalf("corrupt partition: code %d, message %v", p.ErrorCode, p.ErrorMessage)
	}
	if !strings.Contains(e.logs.String(), "compressed batch unreadable") {
		t.Errorf("no log line names the refusal:\n%s", e.logs.String())
	}
	ends, err := e.direct().ListEndOffsets(ctx, testTopic)
	if err != nil {
		t.Fatal(err)
	}
	if p0, _ := ends.Lookup(testTopic, 0); p0.Offset != 3 {
		t.Fatalf("partition 0 ends at %d, want 3", p0.Offset)
	}
	if p1, _ := ends.Lookup(testTopic, 1); p1.Offset != 0 {
		t.Fatalf("partition 1 ends at %d, want 0: the corrupt batch was appended", p1.Offset)
	}
	reader := e.client(e.grant("r", testTopic, ""), kgo.ConsumeTopics(testTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	for _, r := range consume(ctx, t, reader, 3) {
		if r.Partition != 0 {
			t.Fatalf("record at partition %d offset %d: the corrupt batch was appended", r.Partition, r.Offset)
		}
	}
}
