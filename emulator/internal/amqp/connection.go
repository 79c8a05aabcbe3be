package amqp

import "math"

// Open is the open performative (0x10): a connection's parameters.
// Decoding fills the spec's defaults for absent fields.
type Open struct {
	ContainerID         string
	Hostname            string
	MaxFrameSize        uint32 // default 4294967295; 0 is encoded as absent (that default)
	ChannelMax          uint16 // default 65535; encoded as given (0 allows channel 0 only)
	IdleTimeout         uint32 // milliseconds; 0 is none
	OutgoingLocales     []Symbol
	IncomingLocales     []Symbol
	OfferedCapabilities []Symbol
	DesiredCapabilities []Symbol
	Properties          Map
}

// Begin is the begin performative (0x11): a session's parameters.
type Begin struct {
	RemoteChannel       *uint16 // set when answering the peer's begin
	NextOutgoingID      uint32
	IncomingWindow      uint32
	OutgoingWindow      uint32
	HandleMax           uint32 // default 4294967295; encoded as given (0 allows handle 0 only)
	OfferedCapabilities []Symbol
	DesiredCapabilities []Symbol
	Properties          Map
}

// End is the end performative (0x17).
type End struct{ Error *Error }

// Close is the close performative (0x18).
type Close struct{ Error *Error }

func (*Open) descriptor() uint64  { return descOpen }
func (*Begin) descriptor() uint64 { return descBegin }
func (*End) descriptor() uint64   { return descEnd }
func (*Close) descriptor() uint64 { return descClose }

func (p *Open) fields() []any {
	return []any{
		p.ContainerID, nonZero(p.Hostname), nonZero(p.MaxFrameSize), p.ChannelMax, nonZero(p.IdleTimeout),
		symbolArray(p.OutgoingLocales), symbolArray(p.IncomingLocales),
		symbolArray(p.OfferedCapabilities), symbolArray(p.DesiredCapabilities), mapField(p.Properties),
	}
}

func (p *Begin) fields() []any {
	return []any{
		ptr(p.RemoteChannel), p.NextOutgoingID, p.IncomingWindow, p.OutgoingWindow, p.HandleMax,
		symbolArray(p.OfferedCapabilities), symbolArray(p.DesiredCapabilities), mapField(p.Properties),
	}
}

func (p *End) fields() []any   { return []any{p.Error.value()} }
func (p *Close) fields() []any { return []any{p.Error.value()} }

func decodeOpen(r *fieldReader) Performative {
	return &Open{
		ContainerID:         mandatory[string](r, "container-id"),
		Hostname:            orDefault(r, "hostname", ""),
		MaxFrameSize:        orDefault[uint32](r, "max-frame-size", math.MaxUint32),
		ChannelMax:          orDefault[uint16](r, "channel-max", math.MaxUint16),
		IdleTimeout:         orDefault[uint32](r, "idle-time-out", 0),
		OutgoingLocales:     r.symbols("outgoing-locales"),
		IncomingLocales:     r.symbols("incoming-locales"),
		OfferedCapabilities: r.symbols("offered-capabilities"),
		DesiredCapabilities: r.symbols("desired-capabilities"),
		Properties:          orDefault[Map](r, "properties", nil),
	}
}

func decodeBegin(r *fieldReader) Performative {
	return &Begin{
		RemoteChannel:       pointer[uint16](r, "remote-channel"),
		NextOutgoingID:      mandatory[uint32](r, "next-outgoing-id"),
		IncomingWindow:      mandatory[uint32](r, "incoming-window"),
		OutgoingWindow:      mandatory[uint32](r, "outgoing-window"),
		HandleMax:           orDefault[uint32](r, "handle-max", math.MaxUint32),
		OfferedCapabilities: r.symbols("offered-capabilities"),
		DesiredCapabilities: r.symbols("desired-capabilities"),
		Properties:          orDefault[Map](r, "properties", nil),
	}
}

func decodeEnd(r *fieldReader) Performative {
	return &End{Error: composite(r, "error", decodeErrorField)}
}

func decodeClose(r *fieldReader) Performative {
	return &Close{Error: composite(r, "error", decodeErrorField)}
}
