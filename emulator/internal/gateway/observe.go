package gateway

import (
	"encoding/binary"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ProduceObserver is told, per topic of a produce the gateway forwards,
// which grant sent it, how many records it carries and their value bytes
// (a compressed batch's values counted decompressed; keys, headers and
// framing not counted). It runs on the session's goroutine and must not
// block.
type ProduceObserver func(g Grant, records, valueBytes int64)

// WithProduceObserver sets f to be told about every produce the gateway
// forwards upstream (the emulator's data insights count them). A produce
// the broker then refuses was still counted.
func WithProduceObserver(f ProduceObserver) Option {
	return func(g *Gateway) { g.onProduce = f }
}

// observeProduce tells the observer about the topics of a forwarded
// produce (all of them the session's granted topic).
func (s *session) observeProduce(topics []kmsg.ProduceRequestTopic) {
	if s.g.onProduce == nil {
		return
	}
	var n, size int64
	for _, t := range topics {
		for _, p := range t.Partitions {
			pn, ps := countBatches(p.Records)
			n, size = n+pn, size+ps
		}
	}
	if n > 0 {
		s.g.onProduce(s.grant, n, size)
	}
}

// countBatches counts the records of a produce's record batches and their
// value bytes; it stops at the first batch it cannot read (the broker
// will refuse it).
func countBatches(raw []byte) (n, size int64) {
	for len(raw) >= 12 {
		l := int(int32(binary.BigEndian.Uint32(raw[8:12])))
		if l <= 0 || 12+l > len(raw) {
			return n, size
		}
		var b kmsg.RecordBatch
		if err := b.ReadFrom(raw[:12+l]); err != nil {
			return n, size
		}
		raw = raw[12+l:]
		bn, bs, ok := batchValues(b)
		if !ok {
			return n, size
		}
		n, size = n+bn, size+bs
	}
	return n, size
}

// batchValues counts b's records and value bytes, decompressing its
// records into a pooled buffer when it is compressed.
func batchValues(b kmsg.RecordBatch) (n, size int64, ok bool) {
	codec := kgo.CompressionCodecType(b.Attributes & 0x07)
	if codec == kgo.CodecNone {
		return recordValues(b.Records, b.NumRecords)
	}
	if codec > kgo.CodecZstd {
		return 0, 0, false
	}
	recs, err := countDecompressor.Decompress(b.Records, codec)
	if err != nil { // the decompressor took its buffer back
		return 0, 0, false
	}
	n, size, ok = recordValues(recs, b.NumRecords)
	countBuffers.PutDecompressBytes(recs)
	return n, size, ok
}

// recordValues walks count length-prefixed records (Kafka's record
// format v2) and adds up their value lengths, without copying.
func recordValues(raw []byte, count int32) (n, size int64, ok bool) {
	for range count {
		l, k := varint(raw)
		if k <= 0 || l < 0 || int64(len(raw)-k) < l {
			return n, size, false
		}
		v, ok := recordValue(raw[k : k+int(l)])
		if !ok {
			return n, size, false
		}
		n, size, raw = n+1, size+v, raw[k+int(l):]
	}
	return n, size, true
}

// recordValue is the value length of one record's body: attributes,
// timestamp delta, offset delta, key, then the value (a null value is 0).
func recordValue(rec []byte) (int64, bool) {
	if len(rec) < 1 {
		return 0, false
	}
	rec = rec[1:] // attributes
	for range 2 { // timestamp and offset deltas
		_, k := varint(rec)
		if k <= 0 {
			return 0, false
		}
		rec = rec[k:]
	}
	kl, k := varint(rec)
	if k <= 0 || kl > int64(len(rec)-k) {
		return 0, false
	}
	rec = rec[k+int(max(kl, 0)):]
	vl, k := varint(rec)
	if k <= 0 || vl > int64(len(rec)-k) {
		return 0, false
	}
	return max(vl, 0), true
}

// varint is binary.Varint (Kafka's zigzag varints), one-byte values read
// inline: most of a record's are.
func varint(b []byte) (int64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return int64(b[0]>>1) ^ -int64(b[0]&1), 1
	}
	return binary.Varint(b)
}

// countDecompressor is franz-go's own, decompressing into countBuffers:
// the count only reads the records, so nothing holds on to the output.
var countDecompressor = kgo.DefaultDecompressor(countBuffers)

// maxPooledCount is the largest buffer countBuffers keeps.
const maxPooledCount = 8 << 20

// countBuffers are reused buffers (kgo.Pool) for decompressed batches.
var countBuffers = &bufferPool{}

type bufferPool struct{ p sync.Pool }

// GetDecompressBytes returns a pooled buffer, or a new one.
func (bp *bufferPool) GetDecompressBytes([]byte, kgo.CompressionCodecType) []byte {
	if b, ok := bp.p.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, 256<<10)
}

// PutDecompressBytes keeps b for the next batch unless it is too large.
func (bp *bufferPool) PutDecompressBytes(b []byte) {
	if cap(b) == 0 || cap(b) > maxPooledCount {
		return
	}
	b = b[:0]
	bp.p.Put(&b)
}
