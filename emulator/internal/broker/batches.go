package broker

import (
	"encoding/binary"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// decompressor is franz-go's own (klauspost/compress, pierrec/lz4): the
// codecs the emulator's readers decompress with. It decompresses into
// reused buffers (checkBuffers): the check only counts the records, so
// nothing holds on to the output.
var decompressor = kgo.DefaultDecompressor(checkBuffers)

// codecNames are the names of Kafka's batch codecs (compression.type).
var codecNames = [...]string{"none", "gzip", "snappy", "lz4", "zstd"}

// checkRecords returns why a compressed record batch of a produce
// partition cannot be read, or nil: each must decompress to exactly its
// NumRecords length-prefixed records, as Apache Kafka checks before it
// appends a compressed batch. Framing, CRC and unknown codecs are left to
// kfake's own checks, which refuse them with CORRUPT_MESSAGE. A batch of a
// producer ID own reports true for is not checked.
func checkRecords(raw []byte, own func(producerID int64) bool) error {
	for len(raw) >= 12 {
		l := int(int32(binary.BigEndian.Uint32(raw[8:12])))
		if l <= 0 || 12+l > len(raw) {
			return nil
		}
		var b kmsg.RecordBatch
		if err := b.ReadFrom(raw[:12+l]); err != nil {
			return nil
		}
		raw = raw[12+l:]
		codec := kgo.CompressionCodecType(b.Attributes & 0x07)
		if codec == kgo.CodecNone || codec > kgo.CodecZstd || own(b.ProducerID) {
			continue
		}
		recs, err := decompressor.Decompress(b.Records, codec)
		if err != nil { // the decompressor took its buffer back
			return fmt.Errorf("decompress %s batch: %w", codecNames[codec], err)
		}
		err = countRecords(recs, b.NumRecords)
		checkBuffers.PutDecompressBytes(recs)
		if err != nil {
			return fmt.Errorf("read %s batch: %w", codecNames[codec], err)
		}
	}
	return nil
}

// countRecords checks that raw holds exactly n length-prefixed records.
func countRecords(raw []byte, n int32) error {
	for i := int32(0); i < n; i++ {
		l, k := binary.Varint(raw)
		if k <= 0 || l < 0 || int64(len(raw)-k) < l {
			return fmt.Errorf("record %d of %d truncated", i+1, n)
		}
		raw = raw[k+int(l):]
	}
	if len(raw) > 0 {
		return fmt.Errorf("%d bytes after its %d records", len(raw), n)
	}
	return nil
}
