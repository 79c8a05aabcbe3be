package eventhubs

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	goamqp "github.com/Azure/go-amqp"
)

// TestReceiveSplitsLargeEvents receives an event larger than the client's
// max-frame-size: the door sends it in several transfer frames.
func TestReceiveSplitsLargeEvents(t *testing.T) {
	ts := startServer(t, Options{})
	body := bytes.Repeat([]byte("abcdefghij"), 500)
	ts.host.Send(context.Background(), Grant{}, "es", 0, []Event{{Body: body, PartitionKey: "x"}, {Body: []byte("small"), PartitionKey: "x"}})
	ctx := testCtx(t)
	c, err := goamqp.Dial(ctx, "amqp://"+ts.addr, &goamqp.ConnOptions{SASLType: plain(), MaxFrameSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := receiver(ctx, t, newSession(t, c), "amqp.annotation.x-opt-offset > '-1'", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := ts.connMaxOut(); n != 1024 {
		t.Fatalf("the door sends frames of up to %d bytes, want the client's 1024", n)
	}
	for _, want := range [][]byte{body, []byte("small")} {
		m, err := r.Receive(ctx, nil)
		if err != nil || !bytes.Equal(m.GetData(), want) {
			if err != nil {
				t.Fatalf("receive: %v; log: %s", err, ts.logs)
			}
			t.Fatalf("received %d bytes, want %d", len(m.GetData()), len(want))
		}
	}
}

// connMaxOut returns the largest frame the door sends on its one
// connection.
func (ts *testServer) connMaxOut() uint32 {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for c := range ts.conns {
		c.wmu.Lock() // maxOut was set before open's answer was written
		defer c.wmu.Unlock()
		return c.maxOut
	}
	return 0
}

// TestManySessionsAndLinksAtOnce sends from three sessions with two
// senders each while a receiver on another session reads partition 0.
func TestManySessionsAndLinksAtOnce(t *testing.T) {
	ts := startServer(t, Options{LinkCredit: 8})
	ctx := testCtx(t)
	c := dial(t, ts, plain())
	const perLink = 40
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for si := range 3 {
		s := newSession(t, c)
		for li := range 2 {
			snd, err := s.NewSender(ctx, fmt.Sprintf("es/Partitions/%d", li), nil)
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range perLink {
					if err := snd.Send(ctx, goamqp.NewMessage([]byte(fmt.Sprintf("%d-%d-%d", si, li, i))), nil); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
	}
	r, err := receiver(ctx, t, newSession(t, c), "amqp.annotation.x-opt-offset > '-1'", &goamqp.ReceiverOptions{Credit: 7})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for len(seen) < 3*perLink {
		m, err := r.Receive(ctx, nil)
		if err != nil {
			t.Fatalf("after %d events: %v", len(seen), err)
		}
		seen[string(m.GetData())] = true
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n0, n1 := len(ts.host.events("es", 0)), len(ts.host.events("es", 1)); n0 != 3*perLink || n1 != 3*perLink {
		t.Fatalf("partitions hold %d and %d events, want %d each", n0, n1, 3*perLink)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if m, err := r.Receive(short, nil); err == nil {
		t.Fatalf("an extra event %q arrived", m.GetData())
	}
}
