package amqp

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"reflect"
	"testing"
	"time"

	goamqp "github.com/Azure/go-amqp"
)

// events are the messages the loopback server sends to go-amqp's Receiver:
// one in a single frame, one larger than serverMaxFrame in several.
func events() []*Message {
	return []*Message{
		{
			MessageAnnotations: Map{
				{Symbol("x-opt-sequence-number"), int64(5)},
				{Symbol("x-opt-offset"), "4096"},
				{Symbol("x-opt-enqueued-time"), time.UnixMilli(1700000000123).UTC()},
				{Symbol("x-opt-partition-key"), "pk"},
			},
			Properties:            &Properties{MessageID: "e1", ContentType: "text/plain"},
			ApplicationProperties: Map{{"k", "v"}, {"n", int64(-3)}},
			Data:                  [][]byte{[]byte("first")},
		},
		{Data: [][]byte{longBody}},
	}
}

// sendEvents answers a receiving link as its sender, waits for credit,
// sends events() unsettled, and collects the client's dispositions.
func (s *server) sendEvents() error {
	a, err := expect[*Attach](s)
	if err != nil {
		return err
	}
	if a.Role != RoleReceiver {
		return fmt.Errorf("attach %+v is not a receiver's", a)
	}
	s.got.attach, s.link = a, a.Handle
	err = s.write(&Attach{Name: a.Name, Handle: 0, Role: RoleSender, SndSettleMode: SndUnsettled,
		RcvSettleMode: RcvFirst, Source: a.Source, Target: a.Target, InitialDeliveryCount: u32(0)})
	if err != nil {
		return err
	}
	if _, err := expect[*Flow](s); err != nil {
		return err
	}
	for i, m := range events() {
		if err := s.sendEvent(uint32(i), m); err != nil {
			return err
		}
	}
	return s.deliveries()
}

// sendEvent sends m as delivery id, splitting its payload into frames of
// at most serverMaxFrame bytes.
func (s *server) sendEvent(id uint32, m *Message) error {
	payload, err := m.Marshal()
	if err != nil {
		return err
	}
	first := &Transfer{Handle: 0, DeliveryID: &id, DeliveryTag: []byte{byte(id)}, MessageFormat: u32(0)}
	for t := first; ; t = (&Transfer{Handle: 0}) {
		t.More = true // the longest header: more is encoded only when true
		head, _ := AppendPerformativeFrame(nil, 0, t, nil)
		n := min(len(payload), serverMaxFrame-len(head))
		t.More = n < len(payload)
		if err := WritePerformative(s.conn, 0, t, payload[:n]); err != nil {
			return err
		}
		if payload = payload[n:]; !t.More {
			return nil
		}
	}
}

// TestGoAMQPReceiver has go-amqp's Receiver take two messages that the
// codec encoded, one of them in several transfer frames, and accept them.
func TestGoAMQPReceiver(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	errs, got := make(chan error, 1), make(chan received, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			errs <- err
			return
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		s := &server{conn: conn}
		err = s.saslLayer()
		if err == nil {
			err = s.openSession()
		}
		if err == nil {
			err = s.sendEvents()
		}
		errs <- err
		got <- s.got
	}()
	msgs, err := receiveMessages(ln.Addr().String())
	if err != nil {
		t.Fatalf("client: %v; server: %v", err, <-errs)
	}
	if err := <-errs; err != nil {
		t.Fatalf("server: %v", err)
	}
	checkReceived(t, msgs)
	r := <-got
	if want := []uint32{0, 1}; !reflect.DeepEqual(r.accepted, want) {
		t.Fatalf("accepted deliveries %v, want %v", r.accepted, want)
	}
	if r.attach.Source == nil || r.attach.Source.Address != "hub/ConsumerGroups/$Default/Partitions/0" {
		t.Fatalf("attach source = %+v", r.attach.Source)
	}
}

// receiveMessages dials addr, receives two messages and accepts them.
func receiveMessages(addr string) ([]*goamqp.Message, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := goamqp.Dial(ctx, "amqp://"+addr, &goamqp.ConnOptions{SASLType: goamqp.SASLTypeAnonymous()})
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	defer conn.Close()
	sess, err := conn.NewSession(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	rcv, err := sess.NewReceiver(ctx, "hub/ConsumerGroups/$Default/Partitions/0", &goamqp.ReceiverOptions{Credit: 10})
	if err != nil {
		return nil, fmt.Errorf("receiver: %w", err)
	}
	var msgs []*goamqp.Message
	for range 2 {
		m, err := rcv.Receive(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("receive: %w", err)
		}
		if err := rcv.AcceptMessage(ctx, m); err != nil {
			return nil, fmt.Errorf("accept: %w", err)
		}
		msgs = append(msgs, m)
	}
	if err := rcv.Close(ctx); err != nil {
		return nil, fmt.Errorf("close receiver: %w", err)
	}
	if err := sess.Close(ctx); err != nil {
		return nil, fmt.Errorf("close session: %w", err)
	}
	return msgs, conn.Close()
}

// checkReceived compares what go-amqp decoded with events().
func checkReceived(t *testing.T, msgs []*goamqp.Message) {
	t.Helper()
	m := msgs[0]
	want := goamqp.Annotations{
		"x-opt-sequence-number": int64(5), "x-opt-offset": "4096",
		"x-opt-enqueued-time": time.UnixMilli(1700000000123).UTC(), "x-opt-partition-key": "pk",
	}
	if len(m.Annotations) != len(want) {
		t.Fatalf("annotations = %v, want %v", m.Annotations, want)
	}
	for k, v := range want {
		got := m.Annotations[k]
		if tm, ok := got.(time.Time); ok { // go-amqp gives local time
			got = tm.UTC()
		}
		if !reflect.DeepEqual(got, v) {
			t.Fatalf("annotation %v = %#v, want %#v", k, got, v)
		}
	}
	if m.Properties == nil || m.Properties.MessageID != "e1" || *m.Properties.ContentType != "text/plain" {
		t.Fatalf("properties = %+v", m.Properties)
	}
	if !reflect.DeepEqual(m.ApplicationProperties, map[string]any{"k": "v", "n": int64(-3)}) {
		t.Fatalf("application properties = %v", m.ApplicationProperties)
	}
	if string(m.GetData()) != "first" || !bytes.Equal(msgs[1].GetData(), longBody) {
		t.Fatalf("bodies = %q, %d bytes", m.GetData(), len(msgs[1].GetData()))
	}
}
