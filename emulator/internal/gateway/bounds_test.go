package gateway

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestConnectionsOverTheCapAreClosed: with a cap of 2, a third connection
// is closed at once and the log says why; once one closes, a new one is
// served again.
func TestConnectionsOverTheCapAreClosed(t *testing.T) {
	e := newEnvWith(t, []Option{WithMaxConnections(2)})
	a, b := dialRaw(t, e.gw.Addr()), dialRaw(t, e.gw.Addr())
	_ = b
	waitSessions(t, e.gw, 2)
	over := dialRaw(t, e.gw.Addr())
	over.expectClosed()
	if !contains(e.logs.String(), "connection limit reached", "limit=2") {
		t.Fatalf("the log does not say why: %s", e.logs.String())
	}
	a.c.Close()
	waitSessions(t, e.gw, 1)
	next := dialRaw(t, e.gw.Addr())
	waitSessions(t, e.gw, 2)
	_ = next
}

// waitSessions waits until g serves n connections.
func waitSessions(t *testing.T, g *Gateway, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		g.mu.Lock()
		got := len(g.sessions)
		g.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions, want %d", got, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestIdleAuthenticatedConnectionIsClosed: an authenticated franz-go
// client that sends nothing for longer than the idle timeout has its
// connection closed (logged); its next request connects again and works.
func TestIdleAuthenticatedConnectionIsClosed(t *testing.T) {
	e := newEnvWith(t, []Option{WithIdleTimeout(300 * time.Millisecond)})
	pass := e.grant("k1", testTopic, "")
	cl := e.client(pass, kgo.ConnIdleTimeout(10*time.Minute), kgo.DefaultProduceTopic(testTopic))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("before")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if n := strings.Count(e.logs.String(), "idle past the timeout"); n == 0 {
		t.Fatalf("no idle connection closed after 1s of a 300ms idle timeout: %s", e.logs.String())
	}
	waitSessions(t, e.gw, 0)
	if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("after")}).FirstErr(); err != nil {
		t.Fatalf("produce after the idle close: %v", err)
	}
}

// TestBusyConnectionOutlivesIdleTimeout: an authenticated connection
// that sends a request more often than the idle timeout is kept, past
// twice the timeout; left silent, it is then closed.
func TestBusyConnectionOutlivesIdleTimeout(t *testing.T) {
	e := newEnvWith(t, []Option{WithIdleTimeout(300 * time.Millisecond)})
	rc := dialRaw(t, e.gw.Addr())
	rc.authenticate(e.grant("k1", testTopic, ""))
	start := time.Now()
	for time.Since(start) < 900*time.Millisecond {
		rc.roundTrip(kmsg.NewPtrApiVersionsRequest())
		time.Sleep(100 * time.Millisecond)
	}
	if strings.Contains(e.logs.String(), "idle past the timeout") {
		t.Fatalf("a busy connection was closed as idle: %s", e.logs.String())
	}
	rc.expectClosed()
	if !strings.Contains(e.logs.String(), "idle past the timeout") {
		t.Fatal("the silent connection's close is not logged")
	}
}
