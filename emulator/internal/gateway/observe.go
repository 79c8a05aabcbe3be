package gateway

import (
	"encoding/binary"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ProduceObserver is told, per topic of a produce the gateway forwards,
// how many records it carries and the bytes of their record sections (as
// sent: compressed when the client compressed). It runs on the session's
// goroutine and must not block.
type ProduceObserver func(topic string, records, bytes int64)

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
	for _, t := range topics {
		name := t.Topic
		if name == "" {
			name, _ = s.g.topicName(t.TopicID)
		}
		var n, size int64
		for _, p := range t.Partitions {
			pn, ps := countBatches(p.Records)
			n, size = n+pn, size+ps
		}
		if name != "" && n > 0 {
			s.g.onProduce(name, n, size)
		}
	}
}

// countBatches counts the records of a produce's record batches and the
// bytes of their record sections; it stops at the first batch it cannot
// read (the broker will refuse it).
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
		n += int64(b.NumRecords)
		size += int64(len(b.Records))
		raw = raw[12+l:]
	}
	return n, size
}
