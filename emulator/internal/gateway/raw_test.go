package gateway

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// rawConn speaks the Kafka protocol by hand, for requests no client sends.
type rawConn struct {
	t    *testing.T
	c    net.Conn
	r    *bufio.Reader
	corr int32
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{t: t, c: c, r: bufio.NewReader(c)}
}

// send writes req without waiting for an answer.
func (rc *rawConn) send(req kmsg.Request) {
	rc.t.Helper()
	rc.corr++
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("raw-test"))
	if _, err := rc.c.Write(f.AppendRequest(nil, req, rc.corr)); err != nil {
		rc.t.Fatalf("write %s: %v", kmsg.NameForKey(req.Key()), err)
	}
}

// roundTrip sends req and reads its response.
func (rc *rawConn) roundTrip(req kmsg.Request) kmsg.Response {
	rc.t.Helper()
	resp := req.ResponseKind()
	rc.roundTripInto(req, resp)
	return resp
}

// roundTripInto sends req and reads its response into resp, at the
// version resp is set to.
func (rc *rawConn) roundTripInto(req kmsg.Request, resp kmsg.Response) {
	rc.t.Helper()
	rc.send(req)
	var size [4]byte
	if _, err := io.ReadFull(rc.r, size[:]); err != nil {
		rc.t.Fatalf("read %s response: %v", kmsg.NameForKey(req.Key()), err)
	}
	frame := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(rc.r, frame); err != nil {
		rc.t.Fatalf("read %s response: %v", kmsg.NameForKey(req.Key()), err)
	}
	if corr := int32(binary.BigEndian.Uint32(frame)); corr != rc.corr {
		rc.t.Fatalf("%s response has correlation id %d, want %d", kmsg.NameForKey(req.Key()), corr, rc.corr)
	}
	_, body, err := splitResponse(frame, responseHeaderFlexible(req.Key(), req.GetVersion()))
	if err != nil {
		rc.t.Fatalf("%v", err)
	}
	if err := resp.ReadFrom(body); err != nil {
		rc.t.Fatalf("parse %s response: %v", kmsg.NameForKey(req.Key()), err)
	}
}

// authenticate runs SaslHandshake v1 and SaslAuthenticate with PLAIN.
func (rc *rawConn) authenticate(pass string) {
	rc.t.Helper()
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.SetVersion(1)
	hs.Mechanism = "PLAIN"
	if resp := rc.roundTrip(hs).(*kmsg.SASLHandshakeResponse); resp.ErrorCode != 0 {
		rc.t.Fatalf("handshake: error %d", resp.ErrorCode)
	}
	au := kmsg.NewPtrSASLAuthenticateRequest()
	au.SetVersion(1)
	au.SASLAuthBytes = []byte("\x00" + connUser + "\x00" + pass)
	if resp := rc.roundTrip(au).(*kmsg.SASLAuthenticateResponse); resp.ErrorCode != 0 {
		rc.t.Fatalf("authenticate: error %d", resp.ErrorCode)
	}
}

// expectClosed checks that the gateway closes the connection without an
// answer.
func (rc *rawConn) expectClosed() {
	rc.t.Helper()
	n, err := rc.r.Read(make([]byte, 16))
	var ne net.Error
	switch {
	case err == nil:
		rc.t.Fatalf("got %d bytes back, want the connection closed", n)
	case errors.As(err, &ne) && ne.Timeout():
		rc.t.Fatalf("connection left open")
	}
}
