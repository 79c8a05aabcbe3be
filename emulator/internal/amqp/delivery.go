package amqp

// Transfer is the transfer performative (0x14) with the payload bytes that
// follow it in the frame. DeliveryID, DeliveryTag and MessageFormat may be
// absent on the continuation frames of a multi-frame delivery.
type Transfer struct {
	Handle        uint32
	DeliveryID    *uint32
	DeliveryTag   []byte // nil when absent
	MessageFormat *uint32
	Settled       bool
	More          bool
	RcvSettleMode *uint8
	State         DeliveryState
	Resume        bool
	Aborted       bool
	Batchable     bool
	Payload       []byte // set by decoding (aliasing the frame body); AppendPerformativeFrame takes it as an argument
}

// Disposition is the disposition performative (0x15).
type Disposition struct {
	Role      Role
	First     uint32
	Last      *uint32
	Settled   bool
	State     DeliveryState
	Batchable bool
}

func (*Transfer) descriptor() uint64    { return descTransfer }
func (*Disposition) descriptor() uint64 { return descDisposition }

func (p *Transfer) fields() []any {
	return []any{
		p.Handle, ptr(p.DeliveryID), binaryField(p.DeliveryTag), ptr(p.MessageFormat),
		nonZero(p.Settled), nonZero(p.More), ptr(p.RcvSettleMode), stateField(p.State),
		nonZero(p.Resume), nonZero(p.Aborted), nonZero(p.Batchable),
	}
}

func (p *Disposition) fields() []any {
	return []any{
		bool(p.Role), p.First, ptr(p.Last), nonZero(p.Settled), stateField(p.State), nonZero(p.Batchable),
	}
}

func decodeTransfer(r *fieldReader) Performative {
	return &Transfer{
		Handle:        mandatory[uint32](r, "handle"),
		DeliveryID:    pointer[uint32](r, "delivery-id"),
		DeliveryTag:   orDefault[[]byte](r, "delivery-tag", nil),
		MessageFormat: pointer[uint32](r, "message-format"),
		Settled:       orDefault(r, "settled", false),
		More:          orDefault(r, "more", false),
		RcvSettleMode: pointer[uint8](r, "rcv-settle-mode"),
		State:         composite(r, "state", decodeState),
		Resume:        orDefault(r, "resume", false),
		Aborted:       orDefault(r, "aborted", false),
		Batchable:     orDefault(r, "batchable", false),
	}
}

func decodeDisposition(r *fieldReader) Performative {
	return &Disposition{
		Role:      Role(mandatory[bool](r, "role")),
		First:     mandatory[uint32](r, "first"),
		Last:      pointer[uint32](r, "last"),
		Settled:   orDefault(r, "settled", false),
		State:     composite(r, "state", decodeState),
		Batchable: orDefault(r, "batchable", false),
	}
}
