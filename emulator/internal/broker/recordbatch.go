package broker

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// batchHeader is the size of a v2 record batch's header (Kafka's
// RecordBatch, magic 2) before its records.
const batchHeader = 61

// maxBatchBytes bounds one partition's batch in a Produce request: franz-go's
// default ProducerBatchMaxBytes, under Kafka's default max.message.bytes
// (1,048,588). A single record bigger than that still goes, alone.
const maxBatchBytes = 1_000_012

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// batchIdentity is who writes a batch: the idempotent producer's ID and
// epoch, and the batch's first sequence number on its partition.
type batchIdentity struct {
	producerID int64
	epoch      int16
	sequence   int32
}

// recordSize is an upper bound of r's encoded size in a batch (its
// length prefix and deltas at their widest), for sizing batches before
// they are encoded.
func recordSize(r *kgo.Record) int {
	n := 1 + 10 + 5 + 5 + len(r.Key) + 5 + len(r.Value) + 5 + 5 // attributes, deltas, lengths, header count, length prefix
	for _, h := range r.Headers {
		n += 5 + len(h.Key) + 5 + len(h.Value)
	}
	return n
}

// batchCompressor compresses the writer's batches as franz-go's producers
// do by default (snappy); a batch that does not shrink goes uncompressed.
var batchCompressor, _ = kgo.DefaultCompressor(kgo.SnappyCompression())

// scratch are the buffers a batch's records are encoded and compressed in.
var scratch = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// appendBatch appends one v2 record batch of recs (at least one, each
// with its Timestamp set) written by id, its records snappy-compressed
// when that makes them smaller, with its CRC.
func appendBatch(dst []byte, id batchIdentity, recs []*kgo.Record) []byte {
	first, last := recs[0].Timestamp.UnixMilli(), recs[0].Timestamp.UnixMilli()
	for _, r := range recs[1:] {
		ms := r.Timestamp.UnixMilli()
		first, last = min(first, ms), max(last, ms)
	}
	plain, packed := scratch.Get().(*bytes.Buffer), scratch.Get().(*bytes.Buffer)
	defer func() { plain.Reset(); packed.Reset(); scratch.Put(plain); scratch.Put(packed) }()
	body := plain.AvailableBuffer()
	for i, r := range recs {
		body = appendRecord(body, r, r.Timestamp.UnixMilli()-first, int64(i))
	}
	plain.Write(body)
	records, codec := batchCompressor.Compress(packed, plain.Bytes())
	if codec == kgo.CodecNone || len(records) >= plain.Len() {
		records, codec = plain.Bytes(), kgo.CodecNone
	}
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, 0)                   // base offset: the broker's
	dst = binary.BigEndian.AppendUint32(dst, 0)                   // length, below
	dst = binary.BigEndian.AppendUint32(dst, 0xffffffff)          // partition leader epoch: -1
	dst = append(dst, 2)                                          // magic
	dst = binary.BigEndian.AppendUint32(dst, 0)                   // CRC, below
	dst = binary.BigEndian.AppendUint16(dst, uint16(codec))       // attributes: the codec; not transactional
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(recs)-1)) // last offset delta
	dst = binary.BigEndian.AppendUint64(dst, uint64(first))
	dst = binary.BigEndian.AppendUint64(dst, uint64(last))
	dst = binary.BigEndian.AppendUint64(dst, uint64(id.producerID))
	dst = binary.BigEndian.AppendUint16(dst, uint16(id.epoch))
	dst = binary.BigEndian.AppendUint32(dst, uint32(id.sequence))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(recs)))
	dst = append(dst, records...)
	binary.BigEndian.PutUint32(dst[start+8:], uint32(len(dst)-start-12))
	binary.BigEndian.PutUint32(dst[start+17:], crc32.Checksum(dst[start+21:], crc32c))
	return dst
}

// appendRecord appends r as a v2 record: its length, then its body.
func appendRecord(dst []byte, r *kgo.Record, tsDelta, offDelta int64) []byte {
	var body [64]byte
	b := append(body[:0], 0) // attributes
	b = binary.AppendVarint(b, tsDelta)
	b = binary.AppendVarint(b, offDelta)
	size := len(b) + varBytesLen(r.Key) + varBytesLen(r.Value) + varintLen(int64(len(r.Headers)))
	for _, h := range r.Headers {
		size += varintLen(int64(len(h.Key))) + len(h.Key) + varBytesLen(h.Value)
	}
	dst = binary.AppendVarint(dst, int64(size))
	dst = append(dst, b...)
	dst = appendVarBytes(dst, r.Key)
	dst = appendVarBytes(dst, r.Value)
	dst = binary.AppendVarint(dst, int64(len(r.Headers)))
	for _, h := range r.Headers {
		dst = binary.AppendVarint(dst, int64(len(h.Key)))
		dst = append(dst, h.Key...)
		dst = appendVarBytes(dst, h.Value)
	}
	return dst
}

// appendVarBytes appends b with its varint length, -1 for nil.
func appendVarBytes(dst, b []byte) []byte {
	if b == nil {
		return binary.AppendVarint(dst, -1)
	}
	return append(binary.AppendVarint(dst, int64(len(b))), b...)
}

// varBytesLen is the encoded size of b with its length.
func varBytesLen(b []byte) int {
	if b == nil {
		return 1
	}
	return varintLen(int64(len(b))) + len(b)
}

// varintLen is the size of v as a zig-zag varint.
func varintLen(v int64) int {
	var buf [binary.MaxVarintLen64]byte
	return len(binary.AppendVarint(buf[:0], v))
}

// stamp sets the Timestamp of each record that has none.
func stamp(recs []*kgo.Record) {
	now := time.Now()
	for _, r := range recs {
		if r.Timestamp.IsZero() {
			r.Timestamp = now
		}
	}
}
