package eventhubs

import (
	"bytes"
	"errors"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// Message annotations Event Hubs reads and writes.
const (
	annPartitionKey   amqp.Symbol = "x-opt-partition-key"
	annSequenceNumber amqp.Symbol = "x-opt-sequence-number"
	annOffset         amqp.Symbol = "x-opt-offset"
	annEnqueuedTime   amqp.Symbol = "x-opt-enqueued-time"
)

// send decodes a delivery to a hub link and hands its events to the host.
func (l *link) send(format uint32, payload []byte) *amqp.Error {
	c := l.s.c
	g, ok := c.grantFor(l.addr.hub, ClaimSend)
	if !ok {
		e := &amqp.Error{Condition: amqp.CondUnauthorizedAccess, Description: "The token for '" + l.addr.hub + "' expired or was not renewed; 'Send' claim(s) are required."}
		go l.detachWith(e)
		return e
	}
	events, err := decodeEvents(format, payload)
	if err != nil {
		return &amqp.Error{Condition: amqp.CondDecodeError, Description: err.Error()}
	}
	if err := c.host.Send(l.ctx, g, l.addr.hub, l.addr.partition, events); errors.Is(err, ErrDropConnection) {
		c.drop()
		return nil
	} else if err != nil {
		return hostError(err)
	}
	return nil
}

// decodeEvents decodes a single message or an Event Hubs batch.
func decodeEvents(format uint32, payload []byte) ([]Event, error) {
	if format != amqp.BatchMessageFormat {
		m, err := amqp.DecodeMessage(payload)
		if err != nil {
			return nil, err
		}
		return []Event{eventOf(m, "")}, nil
	}
	outer, msgs, err := amqp.DecodeBatch(payload)
	if err != nil {
		return nil, err
	}
	key := partitionKey(outer)
	events := make([]Event, len(msgs))
	for i, m := range msgs {
		events[i] = eventOf(m, key)
	}
	return events, nil
}

// eventOf makes an event of a message; key is the batch's partition key.
func eventOf(m *amqp.Message, key string) Event {
	if k := partitionKey(m); k != "" {
		key = k
	}
	e := Event{Properties: m.Properties, ApplicationProperties: m.ApplicationProperties, PartitionKey: key, Message: m}
	switch len(m.Data) {
	case 0:
	case 1:
		e.Body = m.Data[0]
	default:
		e.Body = bytes.Join(m.Data, nil)
	}
	if e.Body == nil && len(m.Data) > 0 {
		e.Body = []byte{}
	}
	return e
}

// partitionKey returns a message's x-opt-partition-key annotation.
func partitionKey(m *amqp.Message) string {
	v, _ := m.MessageAnnotations.Get(annPartitionKey)
	s, _ := v.(string)
	return s
}
