package amqp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Frame types (part 2, section 2.3.1; part 5, section 5.3.1).
const (
	FrameAMQP uint8 = 0
	FrameSASL uint8 = 1
)

// MinMaxFrameSize is the smallest max-frame-size a peer may announce; every
// peer accepts frames of this size before open is exchanged.
const MinMaxFrameSize = 512

// frameHeaderSize is the fixed part of every frame header.
const frameHeaderSize = 8

// ErrFraming is wrapped by errors about a frame header that breaks the
// frame rules; a server answers it with amqp:connection:framing-error.
var ErrFraming = errors.New("AMQP framing error")

// Frame is one frame: its type, channel and body (the bytes after the
// header and any extended header). An AMQP frame with an empty body is a
// heartbeat.
type Frame struct {
	Type    uint8
	Channel uint16
	Body    []byte
}

// IsHeartbeat reports whether f is an empty AMQP frame.
func (f Frame) IsHeartbeat() bool { return f.Type == FrameAMQP && len(f.Body) == 0 }

// framingError returns an error wrapping ErrFraming.
func framingError(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrFraming)
}

// ReadFrame reads one frame from r. A frame whose declared size exceeds
// maxSize is refused (wrapping ErrFrameTooLarge and ErrFraming) before
// anything is allocated for its body. io.EOF is returned as is when r ends
// cleanly before a frame starts.
func ReadFrame(r io.Reader, maxSize uint32) (Frame, error) {
	var h [frameHeaderSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		if err == io.EOF {
			return Frame{}, io.EOF
		}
		return Frame{}, fmt.Errorf("read frame header: %w", err)
	}
	size, doff := binary.BigEndian.Uint32(h[0:4]), int(h[4])
	if err := checkHeader(size, doff, h[5], maxSize); err != nil {
		return Frame{}, err
	}
	rest := make([]byte, size-frameHeaderSize)
	if _, err := io.ReadFull(r, rest); err != nil {
		return Frame{}, fmt.Errorf("read frame body: %w", noEOF(err))
	}
	f := Frame{Type: h[5], Channel: binary.BigEndian.Uint16(h[6:8])}
	f.Body = rest[doff*4-frameHeaderSize:]
	return f, nil
}

// checkHeader applies the frame rules to a header's fields.
func checkHeader(size uint32, doff int, typ byte, maxSize uint32) error {
	switch {
	case size < frameHeaderSize:
		return framingError("read frame: size %d is smaller than the 8-byte header", size)
	case size > maxSize:
		return fmt.Errorf("read frame: size %d exceeds maximum %d: %w (%w)", size, maxSize, ErrFrameTooLarge, ErrFraming)
	case doff < 2:
		return framingError("read frame: data offset %d is below 2", doff)
	case uint32(doff)*4 > size:
		return framingError("read frame: data offset %d (%d bytes) exceeds size %d", doff, doff*4, size)
	case typ != FrameAMQP && typ != FrameSASL:
		return framingError("read frame: unknown frame type 0x%02x", typ)
	}
	return nil
}

// noEOF turns io.EOF inside a frame into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// AppendFrame appends a frame with the given type, channel and body (no
// extended header) to dst.
func AppendFrame(dst []byte, typ uint8, channel uint16, body []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(frameHeaderSize+len(body)))
	dst = append(dst, 2, typ)
	dst = binary.BigEndian.AppendUint16(dst, channel)
	return append(dst, body...)
}

// WriteFrame writes f to w in one Write call.
func WriteFrame(w io.Writer, f Frame) error {
	if uint64(len(f.Body))+frameHeaderSize > math.MaxUint32 {
		return fmt.Errorf("write frame: body of %d bytes is too large", len(f.Body))
	}
	if _, err := w.Write(AppendFrame(nil, f.Type, f.Channel, f.Body)); err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	return nil
}

// Heartbeat returns the 8-byte empty AMQP frame on channel 0.
func Heartbeat() []byte { return []byte{0, 0, 0, 8, 2, 0, 0, 0} }
