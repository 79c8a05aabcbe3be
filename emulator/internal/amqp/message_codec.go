package amqp

import "fmt"

// sectionRank returns the rank of a section's code: sections must appear
// in rank order (part 3, section 3.2), the body sections sharing one rank.
// ok is false for codes that are not message sections.
func sectionRank(code uint64) (rank int, ok bool) {
	if code < descHeader || code > descFooter {
		return 0, false
	}
	rank = int(code - descHeader)
	switch {
	case code >= descAMQPSequence && code <= descAMQPValue:
		rank = int(descData - descHeader)
	case code == descFooter:
		rank = int(descData-descHeader) + 1
	}
	return rank, true
}

// DecodeMessage decodes a message from a delivery's payload (the bytes of
// all its transfers, joined). Sections must be in the spec's order, each
// at most once except repeated data or amqp-sequence body sections.
// Binary values of the message (data sections, binary properties) alias b
// rather than copy it: b must not be reused while the message is in use.
func DecodeMessage(b []byte) (*Message, error) {
	m := &Message{}
	last, lastCode := -1, uint64(0)
	for off := 0; off < len(b); {
		r := reader{buf: b[off:], alias: true}
		v, err := r.value()
		if err != nil {
			return nil, wrapf(err, "decode message section at byte %d", off)
		}
		n := r.off
		off += n
		d, ok := v.(Described)
		code, known := descriptorCode(d.Descriptor)
		rank, section := sectionRank(code)
		if !ok || !known || !section {
			return nil, malformed("decode message: section at byte %d is not a message section", off-n)
		}
		repeat := code == lastCode && (code == descData || code == descAMQPSequence)
		if rank < last || (rank == last && !repeat) {
			return nil, malformed("decode message: %s after %s", descriptorName(code), descriptorName(lastCode))
		}
		if err := m.setSection(code, d.Value); err != nil {
			return nil, err
		}
		last, lastCode = rank, code
	}
	return m, nil
}

// setSection stores the value of one section.
func (m *Message) setSection(code uint64, v any) error {
	var err error
	switch code {
	case descHeader:
		err = asList(v, code, func(l []any) (err error) { m.Header, err = decodeHeader(l); return })
	case descProperties:
		err = asList(v, code, func(l []any) (err error) { m.Properties, err = decodeProperties(l); return })
	case descDeliveryAnnotations:
		m.DeliveryAnnotations, err = annotations(v, code)
	case descMessageAnnotations:
		m.MessageAnnotations, err = annotations(v, code)
	case descFooter:
		m.Footer, err = annotations(v, code)
	case descApplicationProperties:
		m.ApplicationProperties, err = applicationProperties(v)
	case descData:
		data, ok := v.([]byte)
		if !ok {
			return malformed("decode data: want binary, got %s", amqpType(v))
		}
		m.Data = append(m.Data, data)
	case descAMQPSequence:
		err = asList(v, code, func(l []any) error { m.Sequence = append(m.Sequence, l); return nil })
	case descAMQPValue:
		m.Value, m.HasValue = v, true
	}
	return err
}

// asList passes v to f when it is a list.
func asList(v any, code uint64, f func([]any) error) error {
	l, ok := v.([]any)
	if !ok {
		return malformed("decode %s: want list, got %s", descriptorName(code), amqpType(v))
	}
	return f(l)
}

// annotations checks an annotations map: keys are symbols or ulongs.
func annotations(v any, code uint64) (Map, error) {
	m, ok := v.(Map)
	if !ok {
		return nil, malformed("decode %s: want map, got %s", descriptorName(code), amqpType(v))
	}
	for i, e := range m {
		switch e.Key.(type) {
		case Symbol, uint64:
		default:
			return nil, malformed("decode %s: key %d is %s, want symbol or ulong", descriptorName(code), i, amqpType(e.Key))
		}
	}
	return m, nil
}

// applicationProperties checks the application-properties map: string keys.
func applicationProperties(v any) (Map, error) {
	m, ok := v.(Map)
	if !ok {
		return nil, malformed("decode application-properties: want map, got %s", amqpType(v))
	}
	for i, e := range m {
		if _, ok := e.Key.(string); !ok {
			return nil, malformed("decode application-properties: key %d is %s, want string", i, amqpType(e.Key))
		}
	}
	return m, nil
}

// Marshal returns the encoding of m: its sections in the spec's order.
func (m *Message) Marshal() ([]byte, error) {
	return m.AppendTo(nil)
}

// AppendTo appends the encoding of m to dst.
func (m *Message) AppendTo(dst []byte) ([]byte, error) {
	start := len(dst)
	var err error
	for i, s := range m.sections() {
		if dst, err = AppendValue(dst, s); err != nil {
			return dst[:start], fmt.Errorf("encode message section %d: %w", i, err)
		}
	}
	return dst, nil
}

// sections lists the described values of m's present sections.
func (m *Message) sections() []any {
	var s []any
	if m.Header != nil {
		s = append(s, m.Header.headerValue())
	}
	s = appendMapSection(s, descDeliveryAnnotations, m.DeliveryAnnotations)
	s = appendMapSection(s, descMessageAnnotations, m.MessageAnnotations)
	if m.Properties != nil {
		s = append(s, m.Properties.propertiesValue())
	}
	s = appendMapSection(s, descApplicationProperties, m.ApplicationProperties)
	for _, d := range m.Data {
		s = append(s, Described{Descriptor: descData, Value: nonNilBinary(d)})
	}
	for _, l := range m.Sequence {
		s = append(s, Described{Descriptor: descAMQPSequence, Value: nonNilList(l)})
	}
	if m.HasValue {
		s = append(s, Described{Descriptor: descAMQPValue, Value: m.Value})
	}
	return appendMapSection(s, descFooter, m.Footer)
}

// appendMapSection adds a map section when m is not nil.
func appendMapSection(s []any, code uint64, m Map) []any {
	if m == nil {
		return s
	}
	return append(s, Described{Descriptor: code, Value: m})
}

// nonNilList encodes an amqp-sequence's list: empty rather than null.
func nonNilList(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}
