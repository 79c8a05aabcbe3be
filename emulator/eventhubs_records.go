package emulator

import (
	"fmt"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
	"github.com/fabrictest/fabrictest/emulator/internal/amqp/eventhubs"
	"github.com/twmb/franz-go/pkg/kgo"
)

// amqpPropertiesHeader marks a record an AMQP client sent with a
// properties section or application properties: its value is the
// message's properties section (empty when it has none), and the record's
// other headers are AMQP-encoded application properties. A message with
// neither gets no header, so Kafka consumers see the record a Kafka
// producer of the same body and key would make.
const amqpPropertiesHeader = "x-opt-amqp-properties"

// recordOf is the Kafka record of an event an AMQP client sent.
func recordOf(e eventhubs.Event) (*kgo.Record, error) {
	r := &kgo.Record{}
	_, err := recordInto(r, e, nil)
	return r, err
}

// recordInto fills r, a zero record, with the Kafka record of an event an
// AMQP client sent. The encoded properties section is appended to buf,
// which it returns, so a batch's records share one buffer: r keeps a
// slice of it that later appends do not touch.
func recordInto(r *kgo.Record, e eventhubs.Event, buf []byte) ([]byte, error) {
	r.Value = e.Body
	if e.Body == nil && e.Message != nil {
		body, err := (&amqp.Message{Data: e.Message.Data, Sequence: e.Message.Sequence, Value: e.Message.Value, HasValue: e.Message.HasValue}).Marshal()
		if err != nil {
			return buf, fmt.Errorf("encode body: %w", err)
		}
		r.Value = body
	}
	if r.Value == nil {
		r.Value = []byte{}
	}
	if e.PartitionKey != "" {
		r.Key = []byte(e.PartitionKey)
	}
	r.Headers = make([]kgo.RecordHeader, 0, len(e.ApplicationProperties)+1)
	for _, p := range e.ApplicationProperties {
		name, ok := p.Key.(string)
		if !ok {
			return buf, fmt.Errorf("application property key %v is not a string", p.Key)
		}
		v, err := amqp.EncodeValue(p.Value)
		if err != nil {
			return buf, fmt.Errorf("encode application property %q: %w", name, err)
		}
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: name, Value: v})
	}
	if len(e.ApplicationProperties) == 0 && propertiesEmpty(e.Properties) {
		return buf, nil
	}
	start := len(buf)
	if !propertiesEmpty(e.Properties) {
		b, err := (&amqp.Message{Properties: e.Properties}).AppendTo(buf)
		if err != nil {
			return buf, fmt.Errorf("encode properties: %w", err)
		}
		buf = b
	}
	props := buf[start:len(buf):len(buf)]
	if props == nil {
		props = []byte{}
	}
	r.Headers = append(r.Headers, kgo.RecordHeader{Key: amqpPropertiesHeader, Value: props})
	return buf, nil
}

// propertiesEmpty reports whether p is absent or sets no field.
func propertiesEmpty(p *amqp.Properties) bool {
	return p == nil || p.MessageID == nil && len(p.UserID) == 0 && p.To == "" && p.Subject == "" && p.ReplyTo == "" &&
		p.CorrelationID == nil && p.ContentType == "" && p.ContentEncoding == "" && p.AbsoluteExpiryTime.IsZero() &&
		p.CreationTime.IsZero() && p.GroupID == "" && p.GroupSequence == nil && p.ReplyToGroupID == ""
}

// storedEvent is a Kafka record as an AMQP receiver gets it.
func storedEvent(r *kgo.Record) eventhubs.StoredEvent {
	ev := eventhubs.Event{Body: r.Value, PartitionKey: string(r.Key)}
	if ev.Body == nil {
		ev.Body = []byte{}
	}
	typed := false
	for _, h := range r.Headers {
		if h.Key != amqpPropertiesHeader {
			continue
		}
		typed = true
		if m, err := amqp.DecodeMessage(h.Value); err == nil && len(h.Value) > 0 {
			ev.Properties = m.Properties
		}
	}
	for _, h := range r.Headers {
		if h.Key == amqpPropertiesHeader {
			continue
		}
		ev.ApplicationProperties = append(ev.ApplicationProperties, amqp.MapEntry{Key: h.Key, Value: headerValue(h.Value, typed)})
	}
	return eventhubs.StoredEvent{Event: ev, SequenceNumber: r.Offset, Offset: r.Offset, EnqueuedTime: r.Timestamp.UTC()}
}

// headerValue is a header's application property value: the AMQP value
// it encodes when an AMQP client sent it, else its bytes as binary.
func headerValue(b []byte, typed bool) any {
	if typed {
		if v, n, err := amqp.DecodeValue(b); err == nil && n == len(b) {
			return v
		}
	}
	return append([]byte{}, b...)
}
