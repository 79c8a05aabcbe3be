package amqp

import (
	"fmt"
	"io"
)

// Protocol ids of the protocol header (part 2, section 2.2; part 5).
const (
	ProtoAMQP uint8 = 0 // plain AMQP
	ProtoTLS  uint8 = 2 // TLS negotiated in band
	ProtoSASL uint8 = 3 // SASL security layer
)

// ProtocolHeader is the 8-byte header each peer sends first:
// "AMQP", the protocol id, then major, minor and revision.
type ProtocolHeader struct {
	ID       uint8
	Major    uint8
	Minor    uint8
	Revision uint8
}

// NewProtocolHeader returns the AMQP 1.0.0 protocol header for protocol id id.
func NewProtocolHeader(id uint8) ProtocolHeader {
	return ProtocolHeader{ID: id, Major: 1}
}

// Bytes returns the header's wire form.
func (h ProtocolHeader) Bytes() []byte {
	return []byte{'A', 'M', 'Q', 'P', h.ID, h.Major, h.Minor, h.Revision}
}

// Supported reports whether h asks for AMQP 1.0.0 with a known protocol id.
func (h ProtocolHeader) Supported() bool {
	known := h.ID == ProtoAMQP || h.ID == ProtoTLS || h.ID == ProtoSASL
	return known && h.Major == 1 && h.Minor == 0 && h.Revision == 0
}

// String formats the header as "AMQP id major.minor.revision".
func (h ProtocolHeader) String() string {
	return fmt.Sprintf("AMQP %d %d.%d.%d", h.ID, h.Major, h.Minor, h.Revision)
}

// ReadProtocolHeader reads the 8-byte protocol header. Bytes that do not
// start with "AMQP" give an error wrapping ErrNotAMQP that shows them, and
// names a TLS ClientHello when the bytes look like one.
func ReadProtocolHeader(r io.Reader) (ProtocolHeader, error) {
	var b [8]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return ProtocolHeader{}, fmt.Errorf("read protocol header: %w", err)
	}
	if string(b[:4]) != "AMQP" {
		what := "garbage"
		if b[0] == 0x16 && b[1] == 0x03 {
			what = "a TLS handshake"
		}
		return ProtocolHeader{}, fmt.Errorf("read protocol header: % x is %s: %w", b, what, ErrNotAMQP)
	}
	return ProtocolHeader{ID: b[4], Major: b[5], Minor: b[6], Revision: b[7]}, nil
}

// WriteProtocolHeader writes the AMQP 1.0.0 header for protocol id id.
func WriteProtocolHeader(w io.Writer, id uint8) error {
	if _, err := w.Write(NewProtocolHeader(id).Bytes()); err != nil {
		return fmt.Errorf("write protocol header: %w", err)
	}
	return nil
}
