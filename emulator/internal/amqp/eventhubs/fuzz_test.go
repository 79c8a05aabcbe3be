package eventhubs

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// frames encodes performatives on channel 0, the transfers with payload.
func frames(t testing.TB, payload []byte, ps ...amqp.Performative) []byte {
	var b []byte
	for _, p := range ps {
		var pl []byte
		if _, ok := p.(*amqp.Transfer); ok {
			pl = payload
		}
		var err error
		if b, err = amqp.AppendPerformativeFrame(b, 0, p, pl); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// fuzzSeeds are sessions a client might send after the SASL header.
func fuzzSeeds(t testing.TB) [][]byte {
	msg, err := (&amqp.Message{Data: [][]byte{[]byte("hello")}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	id, zero := uint32(0), uint32(0)
	sasl := frames(t, nil, &amqp.SASLInit{Mechanism: "PLAIN", InitialResponse: []byte("\x00key_x\x00" + testKey)})
	sasl[5] = amqp.FrameSASL
	session := frames(t, msg,
		&amqp.Open{ContainerID: "fuzz"},
		&amqp.Begin{IncomingWindow: 100, OutgoingWindow: 100},
		&amqp.Attach{Name: "s", Handle: 0, Role: amqp.RoleSender, Target: &amqp.Target{Address: "es"}, InitialDeliveryCount: &zero},
		&amqp.Transfer{Handle: 0, DeliveryID: &id, DeliveryTag: []byte{1}, MessageFormat: &zero},
		&amqp.Attach{Name: "r", Handle: 1, Role: amqp.RoleReceiver, Source: &amqp.Source{Address: "es/ConsumerGroups/$Default/Partitions/0"}},
		&amqp.Flow{IncomingWindow: 100, NextOutgoingID: 1, OutgoingWindow: 100, Handle: &[]uint32{1}[0], DeliveryCount: &zero, LinkCredit: &[]uint32{10}[0]},
		&amqp.Detach{Handle: 0, Closed: true},
		&amqp.End{},
		&amqp.Close{},
	)
	amqpHeader := amqp.NewProtocolHeader(amqp.ProtoAMQP).Bytes()
	full := append(append(append([]byte{}, sasl...), amqpHeader...), session...)
	return [][]byte{nil, {0, 0, 0, 8, 2, 1, 0, 0}, sasl, full, full[:len(full)/2]}
}

// scriptConn is a net.Conn that reads a script then ends, and discards
// what the server writes.
type scriptConn struct {
	r *bytes.Reader
	w *logBuffer // nil: discard
}

func (c scriptConn) Read(b []byte) (int, error) { return c.r.Read(b) }
func (c scriptConn) Write(b []byte) (int, error) {
	if c.w != nil {
		return c.w.Write(b)
	}
	return len(b), nil
}
func (c scriptConn) Close() error                     { return nil }
func (c scriptConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c scriptConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c scriptConn) SetDeadline(time.Time) error      { return nil }
func (c scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (c scriptConn) SetWriteDeadline(time.Time) error { return nil }

// runConn serves one connection fed input after a SASL header and waits
// for it to end.
func runConn(t testing.TB, srv *Server, input []byte) string {
	script := append(amqp.NewProtocolHeader(amqp.ProtoSASL).Bytes(), input...)
	out := &logBuffer{}
	c := newConn(srv, scriptConn{r: bytes.NewReader(script), w: out})
	done := make(chan struct{})
	go func() {
		c.serve()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("connection did not end after input % x", input)
	}
	return out.String()
}

// FuzzConnection feeds arbitrary bytes to the connection state machine
// after a valid SASL protocol header: it must neither panic nor hang.
func FuzzConnection(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	srv := NewServer(newFakeHost(), Options{SASLTimeout: 2 * time.Second, IdleTimeout: 2 * time.Second, PollInterval: time.Millisecond})
	defer srv.Close()
	f.Fuzz(func(t *testing.T, input []byte) {
		runConn(t, srv, input)
	})
}

// TestFuzzSeedsReachTheHost checks that the full seed is a working
// session: its transfer reaches the host.
func TestFuzzSeedsReachTheHost(t *testing.T) {
	h := newFakeHost()
	logs := &logBuffer{}
	srv := NewServer(h, Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	defer srv.Close()
	seeds := fuzzSeeds(t)
	runConn(t, srv, seeds[3])
	sends := h.sendCalls()
	if len(sends) != 1 || string(sends[0].events[0].Body) != "hello" {
		t.Fatalf("host got %+v, want one send of hello; log: %s", sends, logs)
	}
}

// TestOversizeDeliveryIsRejected sends a delivery over the link's
// max-message-size in several frames, which go-amqp would refuse to send,
// and checks Event Hubs' rejection.
func TestOversizeDeliveryIsRejected(t *testing.T) {
	h := newFakeHost()
	srv := NewServer(h, Options{MaxMessageSize: 1000})
	defer srv.Close()
	body := make([]byte, 700)
	msg, err := (&amqp.Message{Data: [][]byte{body, body}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	id, zero := uint32(0), uint32(0)
	sasl := frames(t, nil, &amqp.SASLInit{Mechanism: "PLAIN", InitialResponse: []byte("\x00key_x\x00" + testKey)})
	sasl[5] = amqp.FrameSASL
	script := append(sasl, amqp.NewProtocolHeader(amqp.ProtoAMQP).Bytes()...)
	script = append(script, frames(t, nil,
		&amqp.Open{ContainerID: "big"},
		&amqp.Begin{IncomingWindow: 100, OutgoingWindow: 100},
		&amqp.Attach{Name: "s", Handle: 0, Role: amqp.RoleSender, Target: &amqp.Target{Address: "es"}, InitialDeliveryCount: &zero})...)
	script = append(script, frames(t, msg[:800], &amqp.Transfer{Handle: 0, DeliveryID: &id, DeliveryTag: []byte{1}, MessageFormat: &zero, More: true})...)
	script = append(script, frames(t, msg[800:], &amqp.Transfer{Handle: 0})...)
	script = append(script, frames(t, nil, &amqp.Close{})...)
	out := runConn(t, srv, script)
	want := fmt.Sprintf("The received message (delivery-id:0, size:%d bytes) exceeds the limit (1000 bytes) currently allowed on the link.", len(msg))
	if !strings.Contains(out, "amqp:link:message-size-exceeded") || !strings.Contains(out, want) {
		t.Fatalf("the server's answer %q lacks the rejection", out)
	}
	if n := len(h.sendCalls()); n != 0 {
		t.Fatalf("host got %d sends", n)
	}
}

// TestPartialDeliveriesAreBounded starts deliveries on five links and
// never finishes them: past four max-message-sizes the connection closes.
func TestPartialDeliveriesAreBounded(t *testing.T) {
	srv := NewServer(newFakeHost(), Options{MaxMessageSize: 1000})
	defer srv.Close()
	zero := uint32(0)
	sasl := frames(t, nil, &amqp.SASLInit{Mechanism: "PLAIN", InitialResponse: []byte("\x00key_x\x00" + testKey)})
	sasl[5] = amqp.FrameSASL
	script := append(sasl, amqp.NewProtocolHeader(amqp.ProtoAMQP).Bytes()...)
	script = append(script, frames(t, nil, &amqp.Open{ContainerID: "partial"}, &amqp.Begin{IncomingWindow: 100, OutgoingWindow: 100})...)
	for h := range uint32(5) {
		id := h
		script = append(script, frames(t, make([]byte, 900),
			&amqp.Attach{Name: fmt.Sprint(h), Handle: h, Role: amqp.RoleSender, Target: &amqp.Target{Address: "es"}, InitialDeliveryCount: &zero},
			&amqp.Transfer{Handle: h, DeliveryID: &id, DeliveryTag: []byte{1}, MessageFormat: &zero, More: true})...)
	}
	out := runConn(t, srv, script)
	if !strings.Contains(out, "amqp:resource-limit-exceeded") || !strings.Contains(out, "partial deliveries on this connection exceed 4000 bytes") {
		t.Fatalf("the server's answer %q lacks the bound", out)
	}
}
