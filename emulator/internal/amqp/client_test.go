package amqp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	goamqp "github.com/Azure/go-amqp"
)

// serverMaxFrame is the max-frame-size the loopback server announces and
// reads with, so that go-amqp splits larger messages into several transfers.
const serverMaxFrame = MinMaxFrameSize

// received is what the loopback server saw.
type received struct {
	mechanism Symbol
	initial   []byte
	open      *Open
	attach    *Attach
	formats   []uint32
	payloads  [][]byte
	frames    []int    // transfer frames per delivery
	accepted  []uint32 // delivery ids the client accepted
}

// server is a minimal AMQP 1.0 receiver built from the codec alone: it
// takes one connection, one session and one sending link from the client,
// accepts every delivery and answers the client's closing performatives.
type server struct {
	conn net.Conn
	got  received
	link uint32 // the client's handle
}

// read reads and decodes one frame, skipping heartbeats.
func (s *server) read() (Performative, []byte, error) {
	for {
		f, err := ReadFrame(s.conn, serverMaxFrame)
		if err != nil {
			return nil, nil, err
		}
		p, payload, err := DecodeFrame(f)
		if err != nil || p != nil {
			return p, payload, err
		}
	}
}

// expect reads the next performative and checks its type.
func expect[T Performative](s *server) (T, error) {
	p, _, err := s.read()
	t, ok := p.(T)
	if err == nil && !ok {
		err = fmt.Errorf("got %T, want %T", p, t)
	}
	return t, err
}

// write sends p on channel 0.
func (s *server) write(p Performative) error { return WritePerformative(s.conn, 0, p, nil) }

// serve runs the whole exchange.
func (s *server) serve() error {
	if err := s.saslLayer(); err != nil {
		return fmt.Errorf("sasl: %w", err)
	}
	if err := s.openSession(); err != nil {
		return fmt.Errorf("open: %w", err)
	}
	if err := s.attachLink(); err != nil {
		return fmt.Errorf("attach: %w", err)
	}
	return s.deliveries()
}

// saslLayer exchanges the SASL header, mechanisms, init and outcome.
func (s *server) saslLayer() error {
	h, err := ReadProtocolHeader(s.conn)
	if err != nil || h != NewProtocolHeader(ProtoSASL) {
		return fmt.Errorf("header %v: %v", h, err)
	}
	if err := WriteProtocolHeader(s.conn, ProtoSASL); err != nil {
		return err
	}
	if err := s.write(&SASLMechanisms{Mechanisms: []Symbol{"ANONYMOUS", "PLAIN"}}); err != nil {
		return err
	}
	init, err := expect[*SASLInit](s)
	if err != nil {
		return err
	}
	s.got.mechanism, s.got.initial = init.Mechanism, init.InitialResponse
	return s.write(&SASLOutcome{Code: SASLOK})
}

// openSession exchanges the AMQP header, open and begin.
func (s *server) openSession() error {
	h, err := ReadProtocolHeader(s.conn)
	if err != nil || h != NewProtocolHeader(ProtoAMQP) {
		return fmt.Errorf("header %v: %v", h, err)
	}
	if err := WriteProtocolHeader(s.conn, ProtoAMQP); err != nil {
		return err
	}
	if s.got.open, err = expect[*Open](s); err != nil {
		return err
	}
	if err := s.write(&Open{ContainerID: "loopback", MaxFrameSize: serverMaxFrame, ChannelMax: 0}); err != nil {
		return err
	}
	b, err := expect[*Begin](s)
	if err != nil {
		return err
	}
	var ch uint16
	return s.write(&Begin{RemoteChannel: &ch, NextOutgoingID: 0, IncomingWindow: 100, OutgoingWindow: 100,
		HandleMax: 7, OfferedCapabilities: b.DesiredCapabilities})
}

// attachLink answers the client's sending link as its receiver and grants
// credit.
func (s *server) attachLink() error {
	a, err := expect[*Attach](s)
	if err != nil {
		return err
	}
	if a.Role != RoleSender || a.InitialDeliveryCount == nil {
		return fmt.Errorf("attach %+v is not a sender's", a)
	}
	s.got.attach, s.link = a, a.Handle
	err = s.write(&Attach{Name: a.Name, Handle: 0, Role: RoleReceiver, SndSettleMode: a.SndSettleMode,
		RcvSettleMode: RcvFirst, Source: a.Source, Target: a.Target, MaxMessageSize: 1 << 20})
	if err != nil {
		return err
	}
	next := uint32(0)
	return s.write(&Flow{NextIncomingID: &next, IncomingWindow: 100, NextOutgoingID: 0, OutgoingWindow: 100,
		Handle: &s.link, DeliveryCount: a.InitialDeliveryCount, LinkCredit: u32(10)})
}

// deliveries assembles transfers into payloads, accepts each delivery,
// and answers detach, end and close until the client has closed.
func (s *server) deliveries() error {
	var buf []byte
	var id uint32 // continuation transfers leave delivery-id out
	frames := 0
	for {
		p, payload, err := s.read()
		if err != nil {
			return err
		}
		switch p := p.(type) {
		case *Transfer:
			if p.DeliveryID != nil {
				id = *p.DeliveryID
			}
			if p.MessageFormat != nil {
				s.got.formats = append(s.got.formats, *p.MessageFormat)
			}
			frames++
			if buf = append(buf, payload...); p.More {
				continue
			}
			s.got.payloads, buf = append(s.got.payloads, buf), nil
			s.got.frames, frames = append(s.got.frames, frames), 0
			if !p.Settled {
				err = s.write(&Disposition{Role: RoleReceiver, First: id, Settled: true, State: &Accepted{}})
			}
		case *Detach:
			err = s.write(&Detach{Handle: 0, Closed: true})
		case *End:
			err = s.write(&End{})
		case *Close:
			return s.write(&Close{})
		case *Disposition:
			s.noteDisposition(p)
		case *Flow:
		default:
			err = fmt.Errorf("unexpected %s", PerformativeName(p))
		}
		if err != nil {
			return err
		}
	}
}

// noteDisposition records the delivery ids a client's disposition accepts.
func (s *server) noteDisposition(d *Disposition) {
	if _, ok := d.State.(*Accepted); !ok || d.Role != RoleReceiver {
		return
	}
	last := d.First
	if d.Last != nil {
		last = *d.Last
	}
	for id := d.First; id <= last; id++ {
		s.got.accepted = append(s.got.accepted, id)
	}
}

// runServer serves one connection on a loopback listener and reports what
// it received on the returned channel.
func runServer(t *testing.T) (string, <-chan received, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got, errs := make(chan received, 1), make(chan error, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			errs <- err
			return
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		s := &server{conn: conn}
		errs <- s.serve()
		got <- s.got
	}()
	return ln.Addr().String(), got, errs
}

// TestGoAMQPSender has go-amqp's Sender send a message and an Event Hubs
// batch to the loopback server, with SASL ANONYMOUS and PLAIN.
func TestGoAMQPSender(t *testing.T) {
	cases := []struct {
		name      string
		sasl      goamqp.SASLType
		mechanism Symbol
		initial   []byte
	}{
		{"anonymous", goamqp.SASLTypeAnonymous(), "ANONYMOUS", []byte("anonymous")}, // go-amqp's trace string
		{"plain", goamqp.SASLTypePlain("$ConnectionString", "Endpoint=sb://x/"), "PLAIN",
			[]byte("\x00$ConnectionString\x00Endpoint=sb://x/")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr, gotc, errs := runServer(t)
			if err := sendMessages(addr, tc.sasl); err != nil {
				t.Fatalf("client: %v; server: %v", err, <-errs)
			}
			if err := <-errs; err != nil {
				t.Fatalf("server: %v", err)
			}
			got := <-gotc
			if got.mechanism != tc.mechanism || !bytes.Equal(got.initial, tc.initial) {
				t.Fatalf("sasl-init = %s % x, want %s % x", got.mechanism, got.initial, tc.mechanism, tc.initial)
			}
			if got.open.ContainerID != "go-client" || got.open.Hostname != "127.0.0.1" {
				t.Fatalf("open = %+v", got.open)
			}
			if got.attach.Target == nil || got.attach.Target.Address != "hub/Partitions/0" {
				t.Fatalf("attach target = %+v", got.attach.Target)
			}
			checkPayloads(t, got)
		})
	}
}

// longBody is larger than serverMaxFrame, so its transfer spans frames.
var longBody = bytes.Repeat([]byte("0123456789"), 150)

// sendMessages dials addr with go-amqp and sends a plain message, then a
// batch of two.
func sendMessages(addr string, sasl goamqp.SASLType) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := goamqp.Dial(ctx, "amqp://"+addr, &goamqp.ConnOptions{SASLType: sasl, ContainerID: "go-client", HostName: "127.0.0.1"})
	if err != nil {
		return fmt.Errorf("dial: %w", err)
	}
	defer conn.Close()
	sess, err := conn.NewSession(ctx, nil)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	snd, err := sess.NewSender(ctx, "hub/Partitions/0", nil)
	if err != nil {
		return fmt.Errorf("sender: %w", err)
	}
	ct := "application/json"
	msg := &goamqp.Message{
		Properties:            &goamqp.MessageProperties{MessageID: "m1", ContentType: &ct},
		Annotations:           goamqp.Annotations{"x-opt-partition-key": "pk"},
		ApplicationProperties: map[string]any{"k": "v", "n": int64(7)},
		Data:                  [][]byte{longBody},
	}
	if err := snd.Send(ctx, msg, nil); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	batch, err := goBatch()
	if err != nil {
		return err
	}
	if err := snd.Send(ctx, batch, nil); err != nil {
		return fmt.Errorf("send batch: %w", err)
	}
	if err := snd.Close(ctx); err != nil {
		return fmt.Errorf("close sender: %w", err)
	}
	if err := sess.Close(ctx); err != nil {
		return fmt.Errorf("close session: %w", err)
	}
	return conn.Close()
}

// goBatch builds an Event Hubs batch the way the SDKs do: go-amqp encodes
// each event, and the batch message carries them as data sections.
func goBatch() (*goamqp.Message, error) {
	batch := &goamqp.Message{Format: BatchMessageFormat, Annotations: goamqp.Annotations{"x-opt-partition-key": "bk"}}
	for i := range 2 {
		e := &goamqp.Message{ApplicationProperties: map[string]any{"i": int32(i)}, Data: [][]byte{[]byte(fmt.Sprint("event ", i))}}
		b, err := e.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("marshal event %d: %w", i, err)
		}
		batch.Data = append(batch.Data, b)
	}
	return batch, nil
}

// checkPayloads decodes the two deliveries with the codec.
func checkPayloads(t *testing.T, got received) {
	t.Helper()
	if len(got.payloads) != 2 || !reflect.DeepEqual(got.formats, []uint32{0, BatchMessageFormat}) {
		t.Fatalf("%d payloads with formats %v, want 2 with [0 %d]", len(got.payloads), got.formats, BatchMessageFormat)
	}
	if got.frames[0] < 3 || got.frames[1] != 1 {
		t.Fatalf("transfer frames per delivery = %v, want the 1.5 KB message in 3 or more", got.frames)
	}
	m, err := DecodeMessage(got.payloads[0])
	if err != nil {
		t.Fatal(err)
	}
	if m.Properties == nil || m.Properties.MessageID != "m1" || m.Properties.ContentType != "application/json" {
		t.Fatalf("properties = %+v", m.Properties)
	}
	if want := (Map{{"k", "v"}, {"n", int64(7)}}); !sameEntries(m.ApplicationProperties, want) {
		t.Fatalf("application-properties = %v, want %v", m.ApplicationProperties, want)
	}
	if pk, _ := m.MessageAnnotations.Get(Symbol("x-opt-partition-key")); pk != "pk" {
		t.Fatalf("message-annotations = %v", m.MessageAnnotations)
	}
	if len(m.Data) != 1 || !bytes.Equal(m.Data[0], longBody) {
		t.Fatalf("data = %d sections", len(m.Data))
	}
	outer, events, err := DecodeBatch(got.payloads[1])
	if err != nil {
		t.Fatal(err)
	}
	if pk, _ := outer.MessageAnnotations.Get(Symbol("x-opt-partition-key")); pk != "bk" || len(events) != 2 {
		t.Fatalf("batch = %v with %d events", outer.MessageAnnotations, len(events))
	}
	for i, e := range events {
		if v, _ := e.ApplicationProperties.Get("i"); v != int32(i) || string(e.Data[0]) != fmt.Sprint("event ", i) {
			t.Fatalf("event %d = %+v", i, e)
		}
	}
}

// sameEntries compares maps whatever their order (go-amqp encodes Go maps).
func sameEntries(a, b Map) bool {
	if len(a) != len(b) {
		return false
	}
	for _, e := range b {
		if v, ok := a.Get(e.Key); !ok || !reflect.DeepEqual(v, e.Value) {
			return false
		}
	}
	return true
}

// TestGoAMQPRefusedSASL checks that a SASL auth outcome reaches go-amqp as
// a failed dial.
func TestGoAMQPRefusedSASL(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	errs := make(chan error, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			errs <- err
			return
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		s := &server{conn: conn}
		if _, err := ReadProtocolHeader(conn); err != nil {
			errs <- err
			return
		}
		err = errors.Join(WriteProtocolHeader(conn, ProtoSASL), s.write(&SASLMechanisms{Mechanisms: []Symbol{"PLAIN"}}))
		if err == nil {
			_, err = expect[*SASLInit](s)
		}
		errs <- errors.Join(err, s.write(&SASLOutcome{Code: SASLAuth}))
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := goamqp.Dial(ctx, "amqp://"+ln.Addr().String(), &goamqp.ConnOptions{SASLType: goamqp.SASLTypePlain("u", "wrong")})
	if err == nil {
		conn.Close()
		t.Fatal("dial succeeded after a refused SASL outcome")
	}
	if !strings.Contains(err.Error(), "SASL PLAIN auth failed with code 0x1") {
		t.Fatalf("dial error %v does not name the SASL failure", err)
	}
	if err := <-errs; err != nil {
		t.Fatalf("server: %v", err)
	}
}
