package gateway

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
)

func TestSniff(t *testing.T) {
	for _, c := range []struct {
		in    string
		want  protocol
		short bool
	}{
		{"", protoKafka, true},
		{"\x00\x00\x00\x10", protoKafka, false},
		{"\x40", protoKafka, false}, // a 1 GiB request: Kafka's, over its limit
		{"A", protoAMQP, true},
		{"AMQ", protoAMQP, true},
		{"AMQP", protoAMQP, false},
		{"AMQP\x03\x01\x00\x00", protoAMQP, false},
		{"AX", protoUnknown, false},
		{"AMQX", protoUnknown, false},
	} {
		p, short := sniff([]byte(c.in))
		if p != c.want || short != c.short {
			t.Errorf("sniff(%q) = %d, %v; want %d, %v", c.in, p, short, c.want, c.short)
		}
	}
}

// handOffEnv is a gateway whose AMQP handler passes each connection on.
func handOffEnv(t testing.TB) (*env, chan net.Conn) {
	got := make(chan net.Conn, 16)
	e := newEnvWith(t, []Option{WithAMQP(func(c net.Conn) { got <- c })})
	return e, got
}

// TestAMQPHandOff: a connection that opens with the AMQP header goes to
// the handler with every byte it sent, first ones included; Kafka clients
// keep working on the same port; other bytes close the connection with a
// log line.
func TestAMQPHandOff(t *testing.T) {
	e, got := handOffEnv(t)
	nc, err := net.Dial("tcp", e.gw.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sent := "AMQP\x03\x01\x00\x00and what follows"
	if _, err := nc.Write([]byte(sent)); err != nil {
		t.Fatal(err)
	}
	var hc net.Conn
	select {
	case hc = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("no connection handed to the AMQP handler")
	}
	defer hc.Close()
	buf := make([]byte, len(sent))
	_ = hc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(hc, buf); err != nil || string(buf) != sent {
		t.Fatalf("handler read %q, %v; want %q", buf, err, sent)
	}
	if _, err := hc.Write([]byte("AMQP\x03\x01\x00\x00")); err != nil {
		t.Fatalf("handler write: %v", err)
	}
	if err := e.client(e.grant("k", testTopic, "g-")).Ping(testCtx(t)); err != nil {
		t.Fatalf("a Kafka client on the same port: %v", err)
	}
	for _, garbage := range []string{"AMQX\x00\x01\x00\x00", "AXXXXXXXXXXXXXXX", "\x7f\xff\xff\xffnot a request"} {
		if !closedAfter(t, e.gw.Addr(), []byte(garbage)) {
			t.Errorf("%q: the connection stayed open", garbage)
		}
	}
	for _, line := range []string{"neither a Kafka request nor an AMQP header", "frame over the limit before SASL authentication"} {
		if !strings.Contains(e.logs.String(), line) {
			t.Errorf("no log line %q:\n%s", line, e.logs.String())
		}
	}
}

// closedAfter sends data on a new connection and reports whether the
// gateway closed it without answering.
func closedAfter(t testing.TB, addr string, data []byte) bool {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.Write(data); err != nil {
		return true
	}
	_ = nc.SetReadDeadline(time.Now().Add(3 * time.Second))
	n, err := nc.Read(make([]byte, 16))
	return n == 0 && err != nil && !isTimeout(err)
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// FuzzSniffConnection sends arbitrary first bytes to a gateway that hands
// AMQP connections on: a connection is handed over exactly when its bytes
// open with "AMQP", with those bytes unchanged; any other connection is
// served as Kafka or closed, and the gateway keeps serving.
func FuzzSniffConnection(f *testing.F) {
	for _, s := range []string{"AMQP\x00\x01\x00\x00", "AMQP\x03\x01\x00\x00", "AMQ", "A", "AMQX", "\x00\x00\x00\x04abcd", "\x16\x03\x01\x00\x10"} {
		f.Add([]byte(s))
	}
	got := make(chan net.Conn, 16)
	g, err := New([]string{"127.0.0.1:1"}, func(context.Context, string, string) (Grant, error) { return Grant{}, errors.New("no") },
		WithAMQP(func(c net.Conn) { got <- c }), WithAuthTimeout(time.Second), WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		f.Fatal(err)
	}
	if err := g.Start(); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { g.Close() })
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		nc, err := net.Dial("tcp", g.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		_, _ = nc.Write(data)
		if tc, ok := nc.(*net.TCPConn); ok {
			_ = tc.CloseWrite() // a short header ends rather than waits
		}
		if !bytes.HasPrefix(data, []byte(amqpHeader)) {
			// Served as Kafka or refused: closed by the auth deadline at
			// the latest, and routed before that.
			_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := io.Copy(io.Discard, nc); err != nil {
				t.Fatalf("%q: the connection stayed open: %v", data, err)
			}
			select {
			case <-got:
				t.Fatalf("%q handed to the AMQP handler", data)
			default:
			}
			return
		}
		select {
		case hc := <-got:
			defer hc.Close()
			_ = hc.SetReadDeadline(time.Now().Add(5 * time.Second))
			b, _ := io.ReadAll(hc)
			if !bytes.Equal(b, data) {
				t.Fatalf("handler read %q, want %q", b, data)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%q not handed to the AMQP handler", data)
		}
	})
}
