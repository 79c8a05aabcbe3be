package gateway

import (
	"encoding/binary"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// decompressor is franz-go's own (klauspost/compress, pierrec/lz4): the
// codecs the emulator's readers decompress with. It decompresses into
// reused buffers (checkBuffers): the gateway only counts the records, so
// nothing holds on to the output.
var decompressor = kgo.DefaultDecompressor(checkBuffers)

// codecNames are the names of Kafka's batch codecs (compression.type).
var codecNames = [...]string{"none", "gzip", "snappy", "lz4", "zstd"}

// checkRecords returns why a compressed record batch of a produce
// partition cannot be read, or nil: each must decompress to exactly its
// NumRecords length-prefixed records, as Apache Kafka checks before it
// appends a compressed batch. The embedded broker does not decompress what
// it is sent, so without this check one corrupt batch would stop every
// reader of the partition. Framing, CRC and unknown codecs are left to the
// broker, which refuses them with CORRUPT_MESSAGE.
func checkRecords(raw []byte) error {
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
		if codec == kgo.CodecNone || codec > kgo.CodecZstd {
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

// dropCorrupt takes the partitions whose compressed batches cannot be read
// out of topics and returns what is left and the answers for those taken:
// UNKNOWN_SERVER_ERROR with the reason, which is what Apache Kafka 3.9
// answers for a batch that does not decompress.
func (s *session) dropCorrupt(topics []kmsg.ProduceRequestTopic) (keep []kmsg.ProduceRequestTopic, refused []kmsg.ProduceResponseTopic) {
	for _, t := range topics {
		var good []kmsg.ProduceRequestTopicPartition
		var bad []kmsg.ProduceResponseTopicPartition
		for _, p := range t.Partitions {
			err := checkRecords(p.Records)
			if err == nil {
				good = append(good, p)
				continue
			}
			s.log.Warn("kafka gateway: produce refused, compressed batch unreadable", "topic", t.Topic, "partition", p.Partition, "err", err)
			msg := err.Error()
			rp := kmsg.NewProduceResponseTopicPartition()
			rp.Partition, rp.ErrorCode, rp.ErrorMessage = p.Partition, kerr.UnknownServerError.Code, &msg
			rp.BaseOffset, rp.LogAppendTime, rp.LogStartOffset = -1, -1, -1
			bad = append(bad, rp)
		}
		if len(good) > 0 {
			t.Partitions = good
			keep = append(keep, t)
		}
		if len(bad) > 0 {
			rt := kmsg.NewProduceResponseTopic()
			rt.Topic, rt.TopicID, rt.Partitions = t.Topic, t.TopicID, bad
			refused = append(refused, rt)
		}
	}
	return keep, refused
}

// mergeProduceTopics adds local answers to an upstream produce response,
// into the topic's entry when the response has one.
func mergeProduceTopics(resp *kmsg.ProduceResponse, local []kmsg.ProduceResponseTopic) {
	for _, l := range local {
		merged := false
		for i := range resp.Topics {
			t := &resp.Topics[i]
			if (l.Topic != "" && t.Topic == l.Topic) || (l.Topic == "" && t.TopicID == l.TopicID) {
				t.Partitions = append(t.Partitions, l.Partitions...)
				merged = true
				break
			}
		}
		if !merged {
			resp.Topics = append(resp.Topics, l)
		}
	}
}
