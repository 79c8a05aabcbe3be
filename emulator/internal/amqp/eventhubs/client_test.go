package eventhubs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	goamqp "github.com/Azure/go-amqp"
)

// dial opens a go-amqp connection to ts with a SASL type.
func dial(t *testing.T, ts *testServer, sasl goamqp.SASLType) *goamqp.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := goamqp.Dial(ctx, "amqp://"+ts.addr, &goamqp.ConnOptions{SASLType: sasl})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// newSession begins a session on c.
func newSession(t *testing.T, c *goamqp.Conn) *goamqp.Session {
	t.Helper()
	s, err := c.NewSession(testCtx(t), nil)
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	return s
}

// testCtx is a 10-second context for one test.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// plain is SASL PLAIN with the fake host's key_x.
func plain() goamqp.SASLType { return goamqp.SASLTypePlain("key_x", testKey) }

// condition returns the AMQP condition of a go-amqp error.
func condition(err error) string {
	var le *goamqp.LinkError
	if errors.As(err, &le) && le.RemoteErr != nil {
		return string(le.RemoteErr.Condition)
	}
	var e *goamqp.Error
	if errors.As(err, &e) {
		return string(e.Condition)
	}
	var ce *goamqp.ConnError
	if errors.As(err, &ce) && ce.RemoteErr != nil {
		return string(ce.RemoteErr.Condition)
	}
	return ""
}

// TestSendSettledUnsettledAndMultiFrame sends with SASL PLAIN: an
// unsettled message, a settled one, and one larger than the frame size.
func TestSendSettledUnsettledAndMultiFrame(t *testing.T) {
	ts := startServer(t, Options{MaxFrameSize: 512})
	s := newSession(t, dial(t, ts, plain()))
	ctx := testCtx(t)
	unsettled, err := s.NewSender(ctx, "es/Partitions/1", &goamqp.SenderOptions{SettlementMode: goamqp.SenderSettleModeUnsettled.Ptr()})
	if err != nil {
		t.Fatalf("attach: %v", err)
	}
	if got := unsettled.MaxMessageSize(); got != 1<<20 {
		t.Fatalf("max-message-size = %d, want 1 MiB", got)
	}
	big := bytes.Repeat([]byte("0123456789"), 300)
	msg := &goamqp.Message{Data: [][]byte{big}, Properties: &goamqp.MessageProperties{MessageID: "m-1", ContentType: ptr("application/json")},
		Annotations: goamqp.Annotations{"x-opt-partition-key": "pk"}}
	if err := unsettled.Send(ctx, msg, nil); err != nil {
		t.Fatalf("send unsettled: %v", err)
	}
	settled, err := s.NewSender(ctx, "es", &goamqp.SenderOptions{SettlementMode: goamqp.SenderSettleModeSettled.Ptr()})
	if err != nil {
		t.Fatalf("attach settled: %v", err)
	}
	if err := settled.Send(ctx, goamqp.NewMessage([]byte("settled")), nil); err != nil {
		t.Fatalf("send settled: %v", err)
	}
	waitFor(t, func() bool { return len(ts.host.sendCalls()) == 2 })
	sends := ts.host.sendCalls()
	e := sends[0].events[0]
	if sends[0].partition != 1 || !bytes.Equal(e.Body, big) || e.PartitionKey != "pk" || e.Properties.MessageID != "m-1" || e.Properties.ContentType != "application/json" {
		t.Fatalf("multi-frame event = partition %d, %d bytes, key %q, props %+v", sends[0].partition, len(e.Body), e.PartitionKey, e.Properties)
	}
	if sends[1].partition != -1 || string(sends[1].events[0].Body) != "settled" {
		t.Fatalf("settled send = partition %d body %q", sends[1].partition, sends[1].events[0].Body)
	}
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// waitFor polls cond for up to 5 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 5s")
}

// TestSendRejectedWithHostError checks that a host failure rejects the
// delivery with the matching Event Hubs condition.
func TestSendRejectedWithHostError(t *testing.T) {
	ts := startServer(t, Options{})
	s := newSession(t, dial(t, ts, plain()))
	ctx := testCtx(t)
	snd, err := s.NewSender(ctx, "es", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		err  error
		cond string
	}{
		{fmt.Errorf("partition store is full: %w", ErrServerBusy), "com.microsoft:server-busy"},
		{fmt.Errorf("event over 1 MB: %w", ErrTooLarge), "amqp:link:message-size-exceeded"},
		{errors.New("disk failed"), "amqp:internal-error"},
	} {
		ts.host.mu.Lock()
		ts.host.sendErr = c.err
		ts.host.mu.Unlock()
		err := snd.Send(ctx, goamqp.NewMessage([]byte("x")), nil)
		if condition(err) != c.cond || !strings.Contains(err.Error(), c.err.Error()) {
			t.Fatalf("host error %v: send returned %v, want %s", c.err, err, c.cond)
		}
	}
}

// TestAttachRefusals checks the conditions of refused links.
func TestAttachRefusals(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testCtx(t)
	anon := newSession(t, dial(t, ts, goamqp.SASLTypeAnonymous()))
	listen := newSession(t, dial(t, ts, goamqp.SASLTypePlain("listen_only", "bGlzdGVu")))
	full := newSession(t, dial(t, ts, plain()))
	for _, c := range []struct {
		name string
		open func() error
		cond string
	}{
		{"no token", func() error { _, err := anon.NewSender(ctx, "es", nil); return err }, "amqp:unauthorized-access"},
		{"listen key sends", func() error { _, err := listen.NewSender(ctx, "es", nil); return err }, "amqp:unauthorized-access"},
		{"unknown hub", func() error { _, err := full.NewSender(ctx, "nohub", nil); return err }, "amqp:not-found"},
		{"partition out of range", func() error { _, err := full.NewSender(ctx, "es/Partitions/7", nil); return err }, "amqp:not-found"},
		{"unknown group", func() error {
			_, err := full.NewReceiver(ctx, "es/ConsumerGroups/nope/Partitions/0", nil)
			return err
		}, "amqp:not-found"},
		{"bad address", func() error { _, err := full.NewReceiver(ctx, "es", nil); return err }, "amqp:not-found"},
		{"bad selector", func() error {
			_, err := full.NewReceiver(ctx, "es/ConsumerGroups/$Default/Partitions/0", &goamqp.ReceiverOptions{Filters: []goamqp.LinkFilter{goamqp.NewSelectorFilter("x-opt-offset = 3")}})
			return err
		}, "amqp:invalid-field"},
	} {
		if err := c.open(); condition(err) != c.cond {
			t.Errorf("%s: attach returned %v, want %s", c.name, err, c.cond)
		}
	}
	if _, err := listen.NewReceiver(ctx, "es/ConsumerGroups/cg/Partitions/0", nil); err != nil {
		t.Errorf("listen key receiving from group cg: %v", err)
	}
}
