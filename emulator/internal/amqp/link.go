package amqp

// Role is a link endpoint's role: false is sender, true is receiver.
type Role bool

// The two roles.
const (
	RoleSender   Role = false
	RoleReceiver Role = true
)

// Settlement modes of attach.
const (
	SndUnsettled uint8 = 0 // the sender sends all deliveries unsettled
	SndSettled   uint8 = 1 // the sender sends all deliveries settled
	SndMixed     uint8 = 2 // the sender may send either (default)
	RcvFirst     uint8 = 0 // the receiver settles first (default)
	RcvSecond    uint8 = 1 // the receiver settles after the sender
)

// Attach is the attach performative (0x12).
type Attach struct {
	Name                 string
	Handle               uint32
	Role                 Role
	SndSettleMode        uint8 // default SndMixed
	RcvSettleMode        uint8 // default RcvFirst
	Source               *Source
	Target               *Target
	Unsettled            Map
	IncompleteUnsettled  bool
	InitialDeliveryCount *uint32 // set by a sender
	MaxMessageSize       uint64  // 0 is no limit
	OfferedCapabilities  []Symbol
	DesiredCapabilities  []Symbol
	Properties           Map
}

// Detach is the detach performative (0x16).
type Detach struct {
	Handle uint32
	Closed bool
	Error  *Error
}

// Flow is the flow performative (0x13). Handle and the link fields are
// nil for a session-only flow.
type Flow struct {
	NextIncomingID *uint32
	IncomingWindow uint32
	NextOutgoingID uint32
	OutgoingWindow uint32
	Handle         *uint32
	DeliveryCount  *uint32
	LinkCredit     *uint32
	Available      *uint32
	Drain          bool
	Echo           bool
	Properties     Map
}

func (*Attach) descriptor() uint64 { return descAttach }
func (*Detach) descriptor() uint64 { return descDetach }
func (*Flow) descriptor() uint64   { return descFlow }

func (p *Attach) fields() []any {
	return []any{
		p.Name, p.Handle, bool(p.Role), p.SndSettleMode, p.RcvSettleMode,
		p.Source.value(), p.Target.value(), mapField(p.Unsettled), nonZero(p.IncompleteUnsettled),
		ptr(p.InitialDeliveryCount), nonZero(p.MaxMessageSize),
		symbolArray(p.OfferedCapabilities), symbolArray(p.DesiredCapabilities), mapField(p.Properties),
	}
}

func (p *Detach) fields() []any {
	return []any{p.Handle, nonZero(p.Closed), p.Error.value()}
}

func (p *Flow) fields() []any {
	return []any{
		ptr(p.NextIncomingID), p.IncomingWindow, p.NextOutgoingID, p.OutgoingWindow,
		ptr(p.Handle), ptr(p.DeliveryCount), ptr(p.LinkCredit), ptr(p.Available),
		nonZero(p.Drain), nonZero(p.Echo), mapField(p.Properties),
	}
}

func decodeAttach(r *fieldReader) Performative {
	return &Attach{
		Name:                 mandatory[string](r, "name"),
		Handle:               mandatory[uint32](r, "handle"),
		Role:                 Role(mandatory[bool](r, "role")),
		SndSettleMode:        orDefault(r, "snd-settle-mode", SndMixed),
		RcvSettleMode:        orDefault(r, "rcv-settle-mode", RcvFirst),
		Source:               composite(r, "source", decodeSource),
		Target:               composite(r, "target", decodeTarget),
		Unsettled:            orDefault[Map](r, "unsettled", nil),
		IncompleteUnsettled:  orDefault(r, "incomplete-unsettled", false),
		InitialDeliveryCount: pointer[uint32](r, "initial-delivery-count"),
		MaxMessageSize:       orDefault[uint64](r, "max-message-size", 0),
		OfferedCapabilities:  r.symbols("offered-capabilities"),
		DesiredCapabilities:  r.symbols("desired-capabilities"),
		Properties:           orDefault[Map](r, "properties", nil),
	}
}

func decodeDetach(r *fieldReader) Performative {
	return &Detach{
		Handle: mandatory[uint32](r, "handle"),
		Closed: orDefault(r, "closed", false),
		Error:  composite(r, "error", decodeErrorField),
	}
}

func decodeFlow(r *fieldReader) Performative {
	return &Flow{
		NextIncomingID: pointer[uint32](r, "next-incoming-id"),
		IncomingWindow: mandatory[uint32](r, "incoming-window"),
		NextOutgoingID: mandatory[uint32](r, "next-outgoing-id"),
		OutgoingWindow: mandatory[uint32](r, "outgoing-window"),
		Handle:         pointer[uint32](r, "handle"),
		DeliveryCount:  pointer[uint32](r, "delivery-count"),
		LinkCredit:     pointer[uint32](r, "link-credit"),
		Available:      pointer[uint32](r, "available"),
		Drain:          orDefault(r, "drain", false),
		Echo:           orDefault(r, "echo", false),
		Properties:     orDefault[Map](r, "properties", nil),
	}
}
