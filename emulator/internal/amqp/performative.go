package amqp

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Performative is a frame body's command: *Open, *Begin, *Attach, *Flow,
// *Transfer, *Disposition, *Detach, *End, *Close (AMQP frames) or
// *SASLMechanisms, *SASLInit, *SASLChallenge, *SASLResponse, *SASLOutcome
// (SASL frames).
type Performative interface {
	descriptor() uint64
	fields() []any
}

// frameType returns the frame type that carries p.
func frameType(p Performative) uint8 {
	if p.descriptor() >= descSASLMechanisms && p.descriptor() <= descSASLOutcome {
		return FrameSASL
	}
	return FrameAMQP
}

// PerformativeName returns the spec's name of p ("open", "sasl-init", …).
func PerformativeName(p Performative) string { return descriptorName(p.descriptor()) }

// DecodeFrame decodes the performative of f and returns it with the
// payload that follows it (only a transfer has one). A heartbeat gives a
// nil performative. The performative must belong to f's frame type.
func DecodeFrame(f Frame) (Performative, []byte, error) {
	if len(f.Body) == 0 {
		if f.Type == FrameSASL {
			return nil, nil, malformed("decode frame: empty SASL frame")
		}
		return nil, nil, nil
	}
	p, payload, err := DecodePerformative(f.Body)
	if err != nil {
		return nil, nil, err
	}
	if frameType(p) != f.Type {
		return nil, nil, malformed("decode frame: %s in a frame of type %d", PerformativeName(p), f.Type)
	}
	return p, payload, nil
}

// DecodePerformative decodes the performative at the start of body and
// returns the rest of body as the payload; only a transfer may have one.
func DecodePerformative(body []byte) (Performative, []byte, error) {
	v, n, err := DecodeValue(body)
	if err != nil {
		return nil, nil, wrapf(err, "decode performative")
	}
	d, ok := v.(Described)
	if !ok {
		return nil, nil, malformed("decode performative: want a described list, got %s", amqpType(v))
	}
	code, ok := descriptorCode(d.Descriptor)
	decode := performatives[code]
	if !ok || decode == nil {
		return nil, nil, malformed("decode performative: unknown descriptor %v", d.Descriptor)
	}
	l, err := describedList(v, code)
	if err != nil {
		return nil, nil, err
	}
	r := fieldReader{what: descriptorName(code), fields: l}
	p := decode(&r)
	if r.err != nil {
		return nil, nil, r.err
	}
	payload := body[n:]
	if t, ok := p.(*Transfer); ok {
		t.Payload = payload
	} else if len(payload) > 0 {
		return nil, nil, malformed("decode %s: %d bytes after the performative", PerformativeName(p), len(payload))
	}
	return p, payload, nil
}

// performatives maps each descriptor code to the decoder of its fields.
var performatives = map[uint64]func(*fieldReader) Performative{
	descOpen:           decodeOpen,
	descBegin:          decodeBegin,
	descAttach:         decodeAttach,
	descFlow:           decodeFlow,
	descTransfer:       decodeTransfer,
	descDisposition:    decodeDisposition,
	descDetach:         decodeDetach,
	descEnd:            decodeEnd,
	descClose:          decodeClose,
	descSASLMechanisms: decodeSASLMechanisms,
	descSASLInit:       decodeSASLInit,
	descSASLChallenge:  decodeSASLChallenge,
	descSASLResponse:   decodeSASLResponse,
	descSASLOutcome:    decodeSASLOutcome,
}

// EncodePerformative returns the encoded described list of p.
func EncodePerformative(p Performative) ([]byte, error) {
	b, err := AppendValue(nil, describePerformative(p))
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", PerformativeName(p), err)
	}
	return b, nil
}

// AppendPerformativeFrame appends a whole frame on channel carrying p and,
// for a transfer, payload (the Payload field of a *Transfer is ignored).
func AppendPerformativeFrame(dst []byte, channel uint16, p Performative, payload []byte) ([]byte, error) {
	start := len(dst)
	dst = AppendFrame(dst, frameType(p), channel, nil)
	dst, err := AppendValue(dst, describePerformative(p))
	if err != nil {
		return dst[:start], fmt.Errorf("encode %s: %w", PerformativeName(p), err)
	}
	dst = append(dst, payload...)
	if uint64(len(dst)-start) > math.MaxUint32 {
		return dst[:start], fmt.Errorf("encode %s: frame of %d bytes is too large", PerformativeName(p), len(dst)-start)
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst, nil
}

// WritePerformative writes a frame carrying p (and a transfer's payload) to
// w in one Write call.
func WritePerformative(w io.Writer, channel uint16, p Performative, payload []byte) error {
	b, err := AppendPerformativeFrame(nil, channel, p, payload)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write %s: %w", PerformativeName(p), err)
	}
	return nil
}

// whole are the performatives sent with every field, trailing nulls
// included: the spec lets a sender drop them, but the Python Event Hubs
// SDK (azure-eventhub's own AMQP stack) reads these by position and fails
// on a shorter list (IndexError on open's properties, a transfer's
// payload read as its twelfth element).
var whole = map[uint64]bool{descOpen: true, descBegin: true, descAttach: true, descTransfer: true}

// describePerformative is p's described list, trimmed unless p is sent whole.
func describePerformative(p Performative) Described {
	code := p.descriptor()
	if whole[code] {
		return Described{Descriptor: code, Value: p.fields()}
	}
	return describe(code, p.fields())
}
