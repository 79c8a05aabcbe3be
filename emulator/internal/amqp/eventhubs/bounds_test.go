package eventhubs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	goamqp "github.com/Azure/go-amqp"
)

// TestConnectionsOverTheCapAreClosed: with a cap of 2 connections, a
// third go-amqp Dial fails (closed before the protocol header) and the log
// says why.
func TestConnectionsOverTheCapAreClosed(t *testing.T) {
	ts := startServer(t, Options{MaxConnections: 2})
	dial(t, ts, plain())
	dial(t, ts, plain())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := goamqp.Dial(ctx, "amqp://"+ts.addr, &goamqp.ConnOptions{SASLType: plain()})
	if err == nil {
		c.Close()
		t.Fatal("a third connection over a cap of 2 was served")
	}
	if !strings.Contains(ts.logs.String(), "connection limit reached") {
		t.Fatalf("the log does not say why: %s", ts.logs.String())
	}
}

// TestInactiveConnectionIsClosed: a go-amqp connection that opens no link
// and sends only heartbeats is closed with amqp:connection:forced after
// the inactivity timeout; one holding a link is kept.
func TestInactiveConnectionIsClosed(t *testing.T) {
	ts := startServer(t, Options{IdleTimeout: 200 * time.Millisecond, Inactivity: 600 * time.Millisecond})
	idle := dial(t, ts, plain())
	busy := dial(t, ts, plain())
	s := newSession(t, busy)
	ts.host.addHub("hub", 1)
	snd, err := s.NewSender(testCtx(t), "hub", nil)
	if err != nil {
		t.Fatalf("attach: %v", err)
	}
	time.Sleep(1500 * time.Millisecond)
	_, err = idle.NewSession(testCtx(t), nil)
	var ce *goamqp.ConnError
	if !errors.As(err, &ce) || condition(err) != "amqp:connection:forced" || !strings.Contains(ce.Error(), "inactive for more than the allowed 600 milliseconds") {
		t.Fatalf("idle connection's next call: %v, want amqp:connection:forced", err)
	}
	if err := snd.Send(testCtx(t), goamqp.NewMessage([]byte(`{"n":1}`)), nil); err != nil {
		t.Fatalf("the connection holding a link was closed: %v", err)
	}
}
