package eventhubs

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	goamqp "github.com/Azure/go-amqp"
	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// rawDial opens a TCP connection to ts.
func rawDial(t *testing.T, ts *testServer) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

// closedWithin reads until the server closes nc and returns what it sent.
func closedWithin(t *testing.T, nc net.Conn, d time.Duration) []byte {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(d))
	b, err := io.ReadAll(nc)
	if err != nil {
		t.Fatalf("the server did not close the connection within %s: %v", d, err)
	}
	return b
}

// waitLog waits until the server logged want.
func waitLog(t *testing.T, ts *testServer, want string) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if strings.Contains(ts.logs.String(), want) {
			return
		}
	}
	t.Fatalf("log %q lacks %q", ts.logs.String(), want)
}

// TestGarbageAndTLSAreClosedWithCause sends bytes that are not an AMQP
// header and checks the connection closes with a log line naming them.
func TestGarbageAndTLSAreClosedWithCause(t *testing.T) {
	for _, c := range []struct {
		name, bytes, log string
	}{
		{"garbage", "GET / HTTP/1.1\r\n\r\n", "is garbage"},
		{"tls", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", "is a TLS handshake"},
		{"amqp 0-9-1", "AMQP\x00\x00\x09\x01", "unsupported protocol header"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := startServer(t, Options{})
			nc := rawDial(t, ts)
			nc.Write([]byte(c.bytes))
			closedWithin(t, nc, 5*time.Second)
			waitLog(t, ts, c.log)
		})
	}
}

// TestSASLDeadline closes a client that stops after the protocol header.
func TestSASLDeadline(t *testing.T) {
	ts := startServer(t, Options{SASLTimeout: 200 * time.Millisecond})
	nc := rawDial(t, ts)
	nc.Write(amqp.NewProtocolHeader(amqp.ProtoSASL).Bytes())
	start := time.Now()
	closedWithin(t, nc, 5*time.Second)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("closed after %s, want about 200ms", d)
	}
	waitLog(t, ts, "i/o timeout")
}

// TestPreAuthFrameLimit refuses a large frame before open.
func TestPreAuthFrameLimit(t *testing.T) {
	ts := startServer(t, Options{PreAuthFrameSize: 1024})
	nc := rawDial(t, ts)
	nc.Write(amqp.NewProtocolHeader(amqp.ProtoSASL).Bytes())
	var h [8]byte
	binary.BigEndian.PutUint32(h[:], 1<<20)
	h[4], h[5] = 2, amqp.FrameSASL
	nc.Write(h[:])
	closedWithin(t, nc, 5*time.Second)
	waitLog(t, ts, "frame too large")
}

// TestPlainWithWrongKeyFails checks SASL PLAIN with a bad key.
func TestPlainWithWrongKeyFails(t *testing.T) {
	ts := startServer(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := goamqp.Dial(ctx, "amqp://"+ts.addr, &goamqp.ConnOptions{SASLType: goamqp.SASLTypePlain("key_x", "bad")})
	if err == nil {
		t.Fatal("dial with a wrong PLAIN key succeeded")
	}
	waitLog(t, ts, "PLAIN refused")
}

// TestIdleClientIsClosed checks that a client silent for longer than the
// announced idle timeout is closed, and that heartbeats keep one alive.
func TestIdleClientIsClosed(t *testing.T) {
	ts := startServer(t, Options{IdleTimeout: 200 * time.Millisecond})
	nc := rawDial(t, ts)
	nc.Write(amqp.NewProtocolHeader(amqp.ProtoAMQP).Bytes())
	amqp.WritePerformative(nc, 0, &amqp.Open{ContainerID: "raw"}, nil)
	got := closedWithin(t, nc, 5*time.Second)
	if !strings.Contains(string(got), "idle timeout") {
		t.Fatalf("close frame %q does not name the idle timeout", got)
	}
	waitLog(t, ts, "idle timeout")

	ctx := testCtx(t)
	c, err := goamqp.Dial(ctx, "amqp://"+ts.addr, &goamqp.ConnOptions{SASLType: plain(), IdleTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(700 * time.Millisecond)
	s, err := c.NewSession(ctx, nil)
	if err != nil {
		t.Fatalf("session after idling with heartbeats: %v", err)
	}
	if _, err := s.NewSender(ctx, "es", nil); err != nil {
		t.Fatalf("sender after idling with heartbeats: %v", err)
	}
}

// TestSessionAndLinkCaps checks the per-connection bounds.
func TestSessionAndLinkCaps(t *testing.T) {
	ts := startServer(t, Options{MaxSessions: 2, MaxLinks: 3})
	ctx := testCtx(t)
	c := dial(t, ts, plain())
	s := newSession(t, c)
	for i := range 3 {
		if _, err := s.NewSender(ctx, "es", nil); err != nil {
			t.Fatalf("link %d: %v", i, err)
		}
	}
	if _, err := s.NewSender(ctx, "es", nil); condition(err) != "amqp:resource-limit-exceeded" {
		t.Fatalf("fourth link: %v, want amqp:resource-limit-exceeded", err)
	}
	newSession(t, c)
	if _, err := c.NewSession(ctx, nil); err == nil {
		t.Fatal("a third session was begun with MaxSessions 2")
	}
}

// TestFrameOnUnknownChannelClosesConnection sends a flow with no session.
func TestFrameOnUnknownChannelClosesConnection(t *testing.T) {
	ts := startServer(t, Options{})
	nc := rawDial(t, ts)
	nc.Write(amqp.NewProtocolHeader(amqp.ProtoAMQP).Bytes())
	amqp.WritePerformative(nc, 0, &amqp.Open{ContainerID: "raw"}, nil)
	amqp.WritePerformative(nc, 3, &amqp.Flow{IncomingWindow: 1}, nil)
	got := closedWithin(t, nc, 5*time.Second)
	if !strings.Contains(string(got), "amqp:illegal-state") {
		t.Fatalf("close %q lacks amqp:illegal-state", got)
	}
}

// TestCloseForcesConnections checks that Server.Close closes a live
// connection with amqp:connection:forced and refuses new ones.
func TestCloseForcesConnections(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testCtx(t)
	s := newSession(t, dial(t, ts, plain()))
	snd, err := s.NewSender(ctx, "es", nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	ts.Close()
	if d := time.Since(start); d > shutdownGrace {
		t.Fatalf("Close took %s", d)
	}
	if err := snd.Send(ctx, goamqp.NewMessage([]byte("late")), nil); condition(err) != "amqp:connection:forced" {
		t.Fatalf("send after Close: %v, want amqp:connection:forced", err)
	}
	if _, err := net.DialTimeout("tcp", ts.addr, time.Second); err == nil {
		t.Fatal("the listener still accepts after Close")
	}
}
