package amqp

import "time"

// Header is the header section (0x70) of a message.
type Header struct {
	Durable       bool
	Priority      uint8  // default 4
	TTL           uint32 // milliseconds; 0 is none
	FirstAcquirer bool
	DeliveryCount uint32
}

// Properties is the properties section (0x73) of a message. Zero values
// are absent fields.
type Properties struct {
	MessageID          any // uint64, UUID, []byte, string or nil
	UserID             []byte
	To                 string
	Subject            string
	ReplyTo            string
	CorrelationID      any // as MessageID
	ContentType        Symbol
	ContentEncoding    Symbol
	AbsoluteExpiryTime time.Time
	CreationTime       time.Time
	GroupID            string
	GroupSequence      *uint32
	ReplyToGroupID     string
}

// Message is an AMQP message (part 3, section 3.2). A nil section is
// absent. The body is one or more Data sections, one or more Sequence
// sections, or one Value (HasValue set, as the value may be null); a
// decoded message with no body section has none of them.
type Message struct {
	Header                *Header
	DeliveryAnnotations   Map // keys symbol or ulong
	MessageAnnotations    Map // keys symbol or ulong
	Properties            *Properties
	ApplicationProperties Map // keys string
	Data                  [][]byte
	Sequence              [][]any
	Value                 any
	HasValue              bool
	Footer                Map // keys symbol or ulong
}

// Event Hubs' batch message format: the body's data sections each hold one
// encoded message.
const BatchMessageFormat uint32 = 0x80013700

// headerValue returns the described header list.
func (h *Header) headerValue() any {
	return describe(descHeader, []any{
		nonZero(h.Durable), nonDefault(h.Priority, 4), nonZero(h.TTL), nonZero(h.FirstAcquirer), nonZero(h.DeliveryCount),
	})
}

// nonDefault encodes a field as null when it holds its default.
func nonDefault[T comparable](v, def T) any {
	if v == def {
		return nil
	}
	return v
}

// propertiesValue returns the described properties list.
func (p *Properties) propertiesValue() any {
	return describe(descProperties, []any{
		p.MessageID, binaryField(p.UserID), nonZero(p.To), nonZero(p.Subject), nonZero(p.ReplyTo),
		p.CorrelationID, nonZero(p.ContentType), nonZero(p.ContentEncoding),
		timeField(p.AbsoluteExpiryTime), timeField(p.CreationTime), nonZero(p.GroupID),
		ptr(p.GroupSequence), nonZero(p.ReplyToGroupID),
	})
}

// timeField encodes a timestamp field: null for the zero time.
func timeField(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// decodeHeader decodes the header section's list.
func decodeHeader(l []any) (*Header, error) {
	r := fieldReader{what: "header", fields: l}
	h := &Header{
		Durable:       orDefault(&r, "durable", false),
		Priority:      orDefault[uint8](&r, "priority", 4),
		TTL:           orDefault[uint32](&r, "ttl", 0),
		FirstAcquirer: orDefault(&r, "first-acquirer", false),
		DeliveryCount: orDefault[uint32](&r, "delivery-count", 0),
	}
	return h, r.err
}

// decodeProperties decodes the properties section's list.
func decodeProperties(l []any) (*Properties, error) {
	r := fieldReader{what: "properties", fields: l}
	p := &Properties{
		MessageID:          messageID(&r, "message-id"),
		UserID:             orDefault[[]byte](&r, "user-id", nil),
		To:                 orDefault(&r, "to", ""),
		Subject:            orDefault(&r, "subject", ""),
		ReplyTo:            orDefault(&r, "reply-to", ""),
		CorrelationID:      messageID(&r, "correlation-id"),
		ContentType:        orDefault[Symbol](&r, "content-type", ""),
		ContentEncoding:    orDefault[Symbol](&r, "content-encoding", ""),
		AbsoluteExpiryTime: orDefault(&r, "absolute-expiry-time", time.Time{}),
		CreationTime:       orDefault(&r, "creation-time", time.Time{}),
		GroupID:            orDefault(&r, "group-id", ""),
		GroupSequence:      pointer[uint32](&r, "group-sequence"),
		ReplyToGroupID:     orDefault(&r, "reply-to-group-id", ""),
	}
	return p, r.err
}

// messageID reads a message-id field: ulong, uuid, binary or string.
func messageID(r *fieldReader, name string) any {
	switch v := r.next().(type) {
	case nil, uint64, UUID, []byte, string:
		return v
	default:
		r.fail(name, "want ulong, uuid, binary or string, got %s", amqpType(v))
		return nil
	}
}
