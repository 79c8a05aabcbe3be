package eventhubs

import (
	"context"
	"sync"
	"testing"
	"time"

	goamqp "github.com/Azure/go-amqp"
)

// fakeClock is a clock tests move.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

// Now returns the clock's time.
func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// advance moves the clock on.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestTokenRenewalAndExpiry checks that a renewed token keeps a link
// working past the first token's expiry, and that an expired one detaches
// the link with amqp:unauthorized-access.
func TestTokenRenewalAndExpiry(t *testing.T) {
	clock := &fakeClock{t: time.Now()}
	ts := startServer(t, Options{Now: clock.Now})
	ctx := testCtx(t)
	s := newSession(t, dial(t, ts, goamqp.SASLTypeAnonymous()))
	if code, _ := putToken(ctx, t, s, TokenJWT, "amqp://h/es", "good-jwt"); code != 202 {
		t.Fatalf("put-token: %d", code)
	}
	snd, err := s.NewSender(ctx, "es", nil)
	if err != nil {
		t.Fatal(err)
	}
	clock.advance(50 * time.Minute)
	if code, _ := putToken(ctx, t, s, TokenJWT, "amqp://h/es", "good-jwt"); code != 202 {
		t.Fatalf("renewal: %d", code)
	}
	clock.advance(20 * time.Minute)
	if err := snd.Send(ctx, goamqp.NewMessage([]byte("after renewal")), nil); err != nil {
		t.Fatalf("send 70 minutes after the first token, renewed at 50: %v", err)
	}
	clock.advance(time.Hour)
	err = snd.Send(ctx, goamqp.NewMessage([]byte("expired")), nil)
	if condition(err) != "amqp:unauthorized-access" {
		t.Fatalf("send after expiry: %v, want amqp:unauthorized-access", err)
	}
	if n := len(ts.host.sendCalls()); n != 1 {
		t.Fatalf("host got %d sends, want 1", n)
	}
}

// TestRevokeKeyClosesConnections checks that a regenerated key closes the
// connections that authorized with it, and only those.
func TestRevokeKeyClosesConnections(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testCtx(t)
	s := newSession(t, dial(t, ts, plain()))
	other := newSession(t, dial(t, ts, goamqp.SASLTypePlain("listen_only", "bGlzdGVu")))
	snd, err := s.NewSender(ctx, "es", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := ts.RevokeKey("key_x"); n != 1 {
		t.Fatalf("RevokeKey closed %d connections, want 1", n)
	}
	if err := snd.Send(ctx, goamqp.NewMessage([]byte("x")), nil); condition(err) != "amqp:unauthorized-access" {
		t.Fatalf("send after revocation: %v", err)
	}
	if _, err := other.NewReceiver(ctx, "es/ConsumerGroups/$Default/Partitions/0", nil); err != nil {
		t.Fatalf("the other key's connection: %v", err)
	}
}

// TestDrainUsesUpCredit checks that a drain with nothing to read returns
// the credit at once.
func TestDrainUsesUpCredit(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testCtx(t)
	s := newSession(t, dial(t, ts, plain()))
	r, err := receiver(ctx, t, s, "amqp.annotation.x-opt-offset > '-1'", &goamqp.ReceiverOptions{Credit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.IssueCredit(5); err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := r.DrainCredit(dctx, nil); err != nil {
		t.Fatalf("drain: %v", err)
	}
	fill(t, ts, 1)
	short, cancel2 := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel2()
	if m, err := r.Receive(short, nil); err == nil {
		t.Fatalf("a message %q arrived after the credit was drained", m.GetData())
	}
	r.IssueCredit(1)
	if m, err := r.Receive(ctx, nil); err != nil || string(m.GetData()) != "e0" {
		t.Fatalf("after new credit: %v %v", m, err)
	}
}

// TestFiveReadersPerPartition checks Event Hubs' limit of receivers
// without an owner level per partition and consumer group.
func TestFiveReadersPerPartition(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testCtx(t)
	s := newSession(t, dial(t, ts, plain()))
	for i := range 5 {
		if _, err := receiver(ctx, t, s, "", nil); err != nil {
			t.Fatalf("receiver %d: %v", i, err)
		}
	}
	if _, err := receiver(ctx, t, s, "", nil); condition(err) != "amqp:resource-limit-exceeded" {
		t.Fatalf("sixth receiver: %v", err)
	}
	if _, err := s.NewReceiver(ctx, "es/ConsumerGroups/cg/Partitions/0", nil); err != nil {
		t.Fatalf("another group: %v", err)
	}
}
