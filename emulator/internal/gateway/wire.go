package gateway

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxFrame bounds one request frame of an authenticated client, or a
// rewritten response frame: 100 MiB, Apache Kafka's default for
// socket.request.max.bytes.
const maxFrame = 100 << 20

// errFrameSize marks a frame whose declared size is negative or over the
// limit; Kafka brokers close the connection on such a frame.
var errFrameSize = errors.New("invalid frame size")

// readFrame reads one size-prefixed frame of at most limit bytes and returns
// its body. The body's buffer grows as bytes arrive, so a declared size
// costs memory only once the client sends it.
func readFrame(r io.Reader, limit int32) ([]byte, error) {
	n, err := readSize(r, limit)
	if err != nil {
		return nil, err
	}
	buf, err := readBody(r, n)
	if err != nil {
		return nil, fmt.Errorf("read frame: %w", err)
	}
	return buf, nil
}

// readSize reads a frame's int32 size and checks it against limit.
func readSize(r io.Reader, limit int32) (int, error) {
	var b [4]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, err
	}
	n := int32(binary.BigEndian.Uint32(b[:]))
	if n < 0 {
		return 0, fmt.Errorf("read frame: %w: negative size %d", errFrameSize, n)
	}
	if n > limit {
		return 0, fmt.Errorf("read frame: %w: %d bytes over the %d byte limit", errFrameSize, n, limit)
	}
	return int(n), nil
}

// writeFrame writes parts as one size-prefixed frame.
func writeFrame(w *bufio.Writer, parts ...[]byte) error {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(n))
	if _, err := w.Write(b[:]); err != nil {
		return err
	}
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// request is one parsed request frame.
type request struct {
	key     int16
	version int16
	corr    int32
	client  string
	header  []byte       // the frame's header bytes, forwarded verbatim
	body    []byte       // the request body after the header
	msg     kmsg.Request // an empty request of key and version, nil for an unknown key
}

// parseRequest splits a request frame into header and body.
func parseRequest(frame []byte) (*request, error) {
	if len(frame) < 10 {
		return nil, errors.New("parse request header: short frame")
	}
	r := &request{
		key:     int16(binary.BigEndian.Uint16(frame)),
		version: int16(binary.BigEndian.Uint16(frame[2:])),
		corr:    int32(binary.BigEndian.Uint32(frame[4:])),
	}
	off := 8
	if n := int(int16(binary.BigEndian.Uint16(frame[off:]))); n >= 0 {
		off += 2
		if len(frame) < off+n {
			return nil, errors.New("parse request header: short client id")
		}
		r.client = string(frame[off : off+n])
		off += n
	} else {
		off += 2
	}
	r.msg = kmsg.RequestForKey(r.key)
	if r.msg != nil {
		r.msg.SetVersion(r.version)
		if r.msg.IsFlexible() {
			end, err := skipTags(frame, off)
			if err != nil {
				return nil, fmt.Errorf("parse request header: %w", err)
			}
			off = end
		}
	}
	r.header, r.body = frame[:off], frame[off:]
	return r, nil
}

// skipTags returns the offset just past the tagged fields starting at off.
func skipTags(b []byte, off int) (int, error) {
	count, n := binary.Uvarint(b[off:])
	if n <= 0 {
		return 0, errors.New("bad tag count")
	}
	off += n
	for range count {
		if _, n = binary.Uvarint(b[off:]); n <= 0 {
			return 0, errors.New("bad tag key")
		}
		off += n
		size, n := binary.Uvarint(b[off:])
		if n <= 0 || size > uint64(len(b)-off-n) {
			return 0, errors.New("bad tag size")
		}
		off += n + int(size)
	}
	return off, nil
}

// responseHeaderFlexible reports whether the response to a request of key at
// version carries header tagged fields. ApiVersions never does, so that
// clients can read it before they know the broker's versions.
func responseHeaderFlexible(key, version int16) bool {
	if key == int16(kmsg.ApiVersions) {
		return false
	}
	r := kmsg.RequestForKey(key)
	if r == nil {
		return false
	}
	r.SetVersion(version)
	return r.IsFlexible()
}

// splitResponse splits a response frame into header and body.
func splitResponse(frame []byte, flexible bool) (header, body []byte, err error) {
	if len(frame) < 4 {
		return nil, nil, errors.New("parse response header: short frame")
	}
	off := 4
	if flexible {
		if off, err = skipTags(frame, off); err != nil {
			return nil, nil, fmt.Errorf("parse response header: %w", err)
		}
	}
	return frame[:off], frame[off:], nil
}

// responseHeader builds the header of a locally generated response.
func responseHeader(corr int32, flexible bool) []byte {
	h := binary.BigEndian.AppendUint32(nil, uint32(corr))
	if flexible {
		h = append(h, 0)
	}
	return h
}
