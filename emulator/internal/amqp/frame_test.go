package amqp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestProtocolHeaders checks the three headers of part 2, section 2.2 and
// part 5: "AMQP", protocol id, major 1, minor 0, revision 0.
func TestProtocolHeaders(t *testing.T) {
	cases := []struct {
		id   uint8
		want []byte
	}{
		{ProtoAMQP, []byte{'A', 'M', 'Q', 'P', 0, 1, 0, 0}},
		{ProtoTLS, []byte{'A', 'M', 'Q', 'P', 2, 1, 0, 0}},
		{ProtoSASL, []byte{'A', 'M', 'Q', 'P', 3, 1, 0, 0}},
	}
	for _, tc := range cases {
		var buf bytes.Buffer
		if err := WriteProtocolHeader(&buf, tc.id); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), tc.want) {
			t.Fatalf("header %d = % x, want % x", tc.id, buf.Bytes(), tc.want)
		}
		h, err := ReadProtocolHeader(&buf)
		if err != nil || h != NewProtocolHeader(tc.id) || !h.Supported() {
			t.Fatalf("read = %v, %v", h, err)
		}
	}
	if h := (ProtocolHeader{ID: 0, Major: 0, Minor: 9, Revision: 1}); h.Supported() || h.String() != "AMQP 0 0.9.1" {
		t.Fatalf("0-9-1 header %s reported supported", h)
	}
	if (ProtocolHeader{ID: 1, Major: 1}).Supported() {
		t.Fatal("protocol id 1 reported supported")
	}
}

// TestProtocolHeaderErrors checks garbage, TLS and short input.
func TestProtocolHeaderErrors(t *testing.T) {
	_, err := ReadProtocolHeader(strings.NewReader("GET / HTTP/1.1\r\n"))
	if !errors.Is(err, ErrNotAMQP) || !strings.Contains(err.Error(), "47 45 54 20 2f 20 48 54 is garbage") {
		t.Fatalf("HTTP: %v", err)
	}
	_, err = ReadProtocolHeader(bytes.NewReader([]byte{0x16, 0x03, 0x01, 0x02, 0, 1, 0, 0}))
	if !errors.Is(err, ErrNotAMQP) || !strings.Contains(err.Error(), "is a TLS handshake") {
		t.Fatalf("TLS: %v", err)
	}
	_, err = ReadProtocolHeader(strings.NewReader("AMQ"))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("short: %v", err)
	}
	if err := WriteProtocolHeader(failWriter{}, ProtoAMQP); err == nil {
		t.Fatal("write to a failing writer succeeded")
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// TestFrameLayout checks a frame's bytes against part 2, section 2.3.1:
// 4-byte size, doff (in 4-byte words), type, 2-byte channel, body.
func TestFrameLayout(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteFrame(&buf, Frame{Type: FrameSASL, Channel: 0x0102, Body: []byte{0xaa, 0xbb}}); err != nil {
		t.Fatal(err)
	}
	want := []byte{0, 0, 0, 10, 2, 1, 0x01, 0x02, 0xaa, 0xbb}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("frame = % x, want % x", buf.Bytes(), want)
	}
	f, err := ReadFrame(bufio.NewReader(&buf), MinMaxFrameSize)
	if err != nil || f.Type != FrameSASL || f.Channel != 0x0102 || !bytes.Equal(f.Body, []byte{0xaa, 0xbb}) {
		t.Fatalf("read = %+v, %v", f, err)
	}
	if f.IsHeartbeat() {
		t.Fatal("SASL frame taken for a heartbeat")
	}
	if err := WriteFrame(failWriter{}, f); err == nil {
		t.Fatal("write to a failing writer succeeded")
	}
}

// TestHeartbeatAndExtendedHeader reads an empty frame and a frame whose
// doff of 3 puts 4 bytes of extended header before the body.
func TestHeartbeatAndExtendedHeader(t *testing.T) {
	in := append(Heartbeat(), 0, 0, 0, 13, 3, 0, 0, 5, 9, 9, 9, 9, 0x40)
	r := bytes.NewReader(in)
	f, err := ReadFrame(r, MinMaxFrameSize)
	if err != nil || !f.IsHeartbeat() || f.Channel != 0 {
		t.Fatalf("heartbeat = %+v, %v", f, err)
	}
	f, err = ReadFrame(r, MinMaxFrameSize)
	if err != nil || f.Channel != 5 || !bytes.Equal(f.Body, []byte{0x40}) {
		t.Fatalf("extended = %+v, %v", f, err)
	}
	if _, err := ReadFrame(r, MinMaxFrameSize); err != io.EOF {
		t.Fatalf("at end: %v, want io.EOF", err)
	}
}

// TestReadFrameErrors checks each frame rule.
func TestReadFrameErrors(t *testing.T) {
	cases := []struct {
		name, want string
		b          []byte
		is         error
	}{
		{"too large", "read frame: size 4096 exceeds maximum 512", []byte{0, 0, 0x10, 0, 2, 0, 0, 0}, ErrFrameTooLarge},
		{"huge", "size 4294967295 exceeds maximum 512", []byte{0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0}, ErrFraming},
		{"small", "size 4 is smaller than the 8-byte header", []byte{0, 0, 0, 4, 2, 0, 0, 0}, ErrFraming},
		{"doff", "data offset 1 is below 2", []byte{0, 0, 0, 8, 1, 0, 0, 0}, ErrFraming},
		{"doff size", "data offset 4 (16 bytes) exceeds size 12", []byte{0, 0, 0, 12, 4, 0, 0, 0}, ErrFraming},
		{"type", "unknown frame type 0x07", []byte{0, 0, 0, 8, 2, 7, 0, 0}, ErrFraming},
		{"short header", "read frame header: unexpected EOF", []byte{0, 0}, io.ErrUnexpectedEOF},
		{"short body", "read frame body: unexpected EOF", []byte{0, 0, 0, 12, 2, 0, 0, 0, 1}, io.ErrUnexpectedEOF},
		{"no body", "read frame body: unexpected EOF", []byte{0, 0, 0, 12, 2, 0, 0, 0}, io.ErrUnexpectedEOF},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFrame(bytes.NewReader(tc.b), MinMaxFrameSize)
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q wrapping %v", err, tc.want, tc.is)
			}
		})
	}
}

// TestCondition maps each kind of failure to the condition a server sends.
func TestCondition(t *testing.T) {
	_, tooLarge := ReadFrame(bytes.NewReader([]byte{0, 0, 0x10, 0, 2, 0, 0, 0}), MinMaxFrameSize)
	_, badDoff := ReadFrame(bytes.NewReader([]byte{0, 0, 0, 8, 1, 0, 0, 0}), MinMaxFrameSize)
	_, garbage := ReadProtocolHeader(strings.NewReader("GET / HTTP/1.1"))
	_, _, badValue := DecodeValue([]byte{0x02})
	_, _, badPerf := DecodePerformative([]byte{0x00, 0x53, 0x10, 0x45})
	_, badMsg := DecodeMessage([]byte{0x40})
	_, short := ReadFrame(bytes.NewReader([]byte{0, 0}), MinMaxFrameSize)
	cases := []struct {
		err  error
		want Symbol
	}{
		{tooLarge, CondFramingError}, {badDoff, CondFramingError}, {garbage, CondFramingError},
		{badValue, CondDecodeError}, {badPerf, CondDecodeError}, {badMsg, CondDecodeError},
		{short, CondInternalError}, {errors.New("other"), CondInternalError},
	}
	for i, tc := range cases {
		if got := Condition(tc.err); got != tc.want {
			t.Fatalf("%d: Condition(%v) = %s, want %s", i, tc.err, got, tc.want)
		}
	}
}
