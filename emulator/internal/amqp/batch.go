package amqp

import "fmt"

// DecodeBatch decodes the payload of a delivery whose message-format is
// BatchMessageFormat: an outer message whose data sections each hold one
// encoded message. It returns the outer message (its properties and
// annotations, such as Event Hubs' x-opt-partition-key) and the messages.
// As with DecodeMessage, their binary values alias payload.
func DecodeBatch(payload []byte) (*Message, []*Message, error) {
	outer, err := DecodeMessage(payload)
	if err != nil {
		return nil, nil, wrapf(err, "decode batch")
	}
	if outer.HasValue || len(outer.Sequence) > 0 {
		return nil, nil, malformed("decode batch: body is not data sections")
	}
	if len(outer.Data) == 0 {
		return nil, nil, malformed("decode batch: no data sections")
	}
	msgs := make([]*Message, len(outer.Data))
	for i, d := range outer.Data {
		if msgs[i], err = DecodeMessage(d); err != nil {
			return nil, nil, wrapf(err, "decode batch message %d", i)
		}
	}
	return outer, msgs, nil
}

// EncodeBatch encodes msgs as the data sections of a copy of outer (which
// may be nil) and returns the payload for a BatchMessageFormat delivery.
func EncodeBatch(outer *Message, msgs []*Message) ([]byte, error) {
	var m Message
	if outer != nil {
		m = *outer
	}
	m.Data, m.Sequence, m.Value, m.HasValue = make([][]byte, len(msgs)), nil, nil, false
	for i, msg := range msgs {
		b, err := msg.Marshal()
		if err != nil {
			return nil, fmt.Errorf("encode batch message %d: %w", i, err)
		}
		m.Data[i] = b
	}
	return m.Marshal()
}
