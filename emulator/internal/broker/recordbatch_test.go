package broker

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestAppendBatchDecodes: a batch appendBatch writes reads back with
// kmsg's decoders: its header (producer, sequence, counts, timestamps,
// snappy as its codec: the records compress), a CRC-32C over its body,
// and, decompressed, each record's key, value (nil kept), headers,
// timestamp and offset deltas.
func TestAppendBatchDecodes(t *testing.T) {
	t0 := time.UnixMilli(1_700_000_000_000)
	recs := []*kgo.Record{
		{Key: []byte("k1"), Value: []byte(`{"a":1}`), Timestamp: t0.Add(5 * time.Millisecond),
			Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("v")}, {Key: "nil"}}},
		{Value: bytes.Repeat([]byte("x"), 300), Timestamp: t0},
		{Key: []byte("tomb"), Timestamp: t0.Add(time.Second)},
	}
	raw := appendBatch([]byte("prefix"), batchIdentity{producerID: 7, epoch: 2, sequence: 41}, recs)[len("prefix"):]
	var b kmsg.RecordBatch
	if err := b.ReadFrom(raw); err != nil {
		t.Fatal(err)
	}
	if int(b.Length) != len(raw)-12 || b.Magic != 2 || b.ProducerID != 7 || b.ProducerEpoch != 2 || b.FirstSequence != 41 ||
		b.NumRecords != 3 || b.LastOffsetDelta != 2 || b.Attributes != int16(kgo.CodecSnappy) || b.PartitionLeaderEpoch != -1 {
		t.Fatalf("header %+v", b)
	}
	if b.FirstTimestamp != t0.UnixMilli() || b.MaxTimestamp != t0.Add(time.Second).UnixMilli() {
		t.Fatalf("timestamps %d..%d, want %d..%d", b.FirstTimestamp, b.MaxTimestamp, t0.UnixMilli(), t0.Add(time.Second).UnixMilli())
	}
	if crc := crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)); uint32(b.CRC) != crc {
		t.Fatalf("CRC %08x, want %08x", uint32(b.CRC), crc)
	}
	rest, err := kgo.DefaultDecompressor().Decompress(b.Records, kgo.CodecSnappy)
	if err != nil {
		t.Fatalf("decompress: %v", err)
	}
	for i, want := range recs {
		n, w := binary.Varint(rest)
		if w <= 0 || int(n)+w > len(rest) {
			t.Fatalf("record %d: length %d of %d bytes", i, n, len(rest))
		}
		var r kmsg.Record
		if err := r.ReadFrom(rest[:w+int(n)]); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		rest = rest[w+int(n):]
		if r.OffsetDelta != int32(i) || b.FirstTimestamp+r.TimestampDelta64 != want.Timestamp.UnixMilli() ||
			!bytes.Equal(r.Key, want.Key) || (r.Key == nil) != (want.Key == nil) ||
			!bytes.Equal(r.Value, want.Value) || (r.Value == nil) != (want.Value == nil) || len(r.Headers) != len(want.Headers) {
			t.Fatalf("record %d: %+v, want %+v", i, r, want)
		}
		for j, h := range want.Headers {
			if r.Headers[j].Key != h.Key || !bytes.Equal(r.Headers[j].Value, h.Value) || (r.Headers[j].Value == nil) != (h.Value == nil) {
				t.Fatalf("record %d header %d: %+v, want %+v", i, j, r.Headers[j], h)
			}
		}
		if size := recordSize(want); w+int(n) > size {
			t.Fatalf("record %d: %d bytes encoded, over its bound %d", i, w+int(n), size)
		}
	}
	if len(rest) != 0 {
		t.Fatalf("%d bytes after the last record", len(rest))
	}
}

// TestAppendBatchLeavesIncompressibleRecordsPlain: a record that snappy
// cannot shrink goes uncompressed (codec none), readable as it is.
func TestAppendBatchLeavesIncompressibleRecordsPlain(t *testing.T) {
	value := make([]byte, 64)
	for i := range value {
		value[i] = byte(i*131 + 7)
	}
	raw := appendBatch(nil, batchIdentity{producerID: 1}, []*kgo.Record{{Value: value, Timestamp: time.UnixMilli(1)}})
	var b kmsg.RecordBatch
	if err := b.ReadFrom(raw); err != nil {
		t.Fatal(err)
	}
	if b.Attributes != 0 || !bytes.Contains(b.Records, value) {
		t.Fatalf("attributes %d, records %x: want plain records holding the value", b.Attributes, b.Records)
	}
}
