package amqp

// DeliveryState is the state of a delivery carried by transfer and
// disposition: *Received, *Accepted, *Rejected, *Released or *Modified.
// The last four are outcomes.
type DeliveryState interface {
	stateValue() any
}

// Received is the received state (0x23): how much of the message the
// receiver has.
type Received struct {
	SectionNumber uint32
	SectionOffset uint64
}

// Accepted is the accepted outcome (0x24).
type Accepted struct{}

// Rejected is the rejected outcome (0x25) with an optional error.
type Rejected struct {
	Error *Error
}

// Released is the released outcome (0x26).
type Released struct{}

// Modified is the modified outcome (0x27).
type Modified struct {
	DeliveryFailed     bool
	UndeliverableHere  bool
	MessageAnnotations Map
}

func (s *Received) stateValue() any {
	return describe(descReceived, []any{s.SectionNumber, s.SectionOffset})
}
func (s *Accepted) stateValue() any { return describe(descAccepted, nil) }
func (s *Rejected) stateValue() any { return describe(descRejected, []any{s.Error.value()}) }
func (s *Released) stateValue() any { return describe(descReleased, nil) }
func (s *Modified) stateValue() any {
	return describe(descModified, []any{nonZero(s.DeliveryFailed), nonZero(s.UndeliverableHere), mapField(s.MessageAnnotations)})
}

// stateField encodes an optional delivery state.
func stateField(s DeliveryState) any {
	if s == nil {
		return nil
	}
	return s.stateValue()
}

// decodeState decodes an optional delivery state.
func decodeState(v any) (DeliveryState, error) {
	if v == nil {
		return nil, nil
	}
	d, ok := v.(Described)
	if !ok {
		return nil, malformed("decode delivery state: want a described list, got %s", amqpType(v))
	}
	code, _ := descriptorCode(d.Descriptor)
	l, err := describedList(v, code)
	if err != nil {
		return nil, err
	}
	r := fieldReader{what: descriptorName(code), fields: l}
	var s DeliveryState
	switch code {
	case descReceived:
		s = &Received{SectionNumber: mandatory[uint32](&r, "section-number"), SectionOffset: mandatory[uint64](&r, "section-offset")}
	case descAccepted:
		s = &Accepted{}
	case descRejected:
		s = &Rejected{Error: composite(&r, "error", decodeErrorField)}
	case descReleased:
		s = &Released{}
	case descModified:
		s = &Modified{DeliveryFailed: orDefault(&r, "delivery-failed", false),
			UndeliverableHere: orDefault(&r, "undeliverable-here", false), MessageAnnotations: orDefault[Map](&r, "message-annotations", nil)}
	default:
		return nil, malformed("decode delivery state: unknown descriptor %v", d.Descriptor)
	}
	return s, r.err
}
