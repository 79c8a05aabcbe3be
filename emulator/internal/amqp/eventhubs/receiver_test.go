package eventhubs

import (
	"context"
	"fmt"
	"testing"
	"time"

	goamqp "github.com/Azure/go-amqp"
)

// fill stores n events "e0"… in partition 0 of es.
func fill(t *testing.T, ts *testServer, n int) []StoredEvent {
	t.Helper()
	var evs []Event
	for i := range n {
		evs = append(evs, Event{Body: []byte(fmt.Sprintf("e%d", i)), PartitionKey: "pk", ApplicationProperties: nil})
	}
	if err := ts.host.Send(context.Background(), Grant{}, "es", 0, evs); err != nil {
		t.Fatal(err)
	}
	return ts.host.events("es", 0)
}

// receiver attaches to partition 0 of $Default with a selector.
func receiver(ctx context.Context, t *testing.T, s *goamqp.Session, selector string, opts *goamqp.ReceiverOptions) (*goamqp.Receiver, error) {
	t.Helper()
	if opts == nil {
		opts = &goamqp.ReceiverOptions{}
	}
	if selector != "" {
		opts.Filters = []goamqp.LinkFilter{goamqp.NewSelectorFilter(selector)}
	}
	return s.NewReceiver(ctx, "es/ConsumerGroups/$Default/Partitions/0", opts)
}

// TestReceiverSelectorsAndAnnotations starts receivers at an offset, a
// sequence number and an enqueued time, inclusive and exclusive.
func TestReceiverSelectorsAndAnnotations(t *testing.T) {
	ts := startServer(t, Options{})
	stored := fill(t, ts, 4)
	ctx := testCtx(t)
	s := newSession(t, dial(t, ts, plain()))
	for _, c := range []struct {
		selector string
		first    int
	}{
		{"amqp.annotation.x-opt-offset > '-1'", 0},
		{fmt.Sprintf("amqp.annotation.x-opt-offset >= '%d'", stored[2].Offset), 2},
		{fmt.Sprintf("amqp.annotation.x-opt-offset > '%d'", stored[2].Offset), 3},
		{"amqp.annotation.x-opt-sequence-number >= '1'", 1},
		{"amqp.annotation.x-opt-sequence-number > '1'", 2},
		{fmt.Sprintf("amqp.annotation.x-opt-enqueued-time >= '%d'", stored[0].EnqueuedTime.UnixMilli()), 0},
	} {
		r, err := receiver(ctx, t, s, c.selector, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.selector, err)
		}
		m, err := r.Receive(ctx, nil)
		if err != nil {
			t.Fatalf("%s: receive: %v", c.selector, err)
		}
		want := stored[c.first]
		a := m.Annotations
		if string(m.GetData()) != string(want.Body) || a["x-opt-sequence-number"] != want.SequenceNumber ||
			a["x-opt-offset"] != fmt.Sprint(want.Offset) || a["x-opt-partition-key"] != "pk" {
			t.Fatalf("%s: got %q with %v, want %q (seq %d)", c.selector, m.GetData(), a, want.Body, want.SequenceNumber)
		}
		if et, _ := a["x-opt-enqueued-time"].(time.Time); !et.Equal(want.EnqueuedTime) {
			t.Fatalf("%s: enqueued time %v, want %v", c.selector, a["x-opt-enqueued-time"], want.EnqueuedTime)
		}
		r.Close(ctx)
	}
}

// TestReceiverFromLatestGetsOnlyNewEvents checks "@latest" and that a
// receiver waits for events that arrive later.
func TestReceiverFromLatestGetsOnlyNewEvents(t *testing.T) {
	ts := startServer(t, Options{})
	fill(t, ts, 3)
	ctx := testCtx(t)
	s := newSession(t, dial(t, ts, plain()))
	r, err := receiver(ctx, t, s, "amqp.annotation.x-opt-offset > '@latest'", nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		ts.host.Send(context.Background(), Grant{}, "es", 0, []Event{{Body: []byte("new")}})
	}()
	m, err := r.Receive(ctx, nil)
	if err != nil || string(m.GetData()) != "new" || m.Annotations["x-opt-sequence-number"] != int64(3) {
		t.Fatalf("receive after @latest: %v %v", m, err)
	}
}

// TestEpochTakesPartitionOver checks owner levels: a higher epoch detaches
// the lower with amqp:link:stolen, a lower or absent one is refused.
func TestEpochTakesPartitionOver(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testCtx(t)
	s1 := newSession(t, dial(t, ts, plain()))
	s2 := newSession(t, dial(t, ts, plain()))
	plainR, err := receiver(ctx, t, s1, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	low, err := receiver(ctx, t, s1, "", &goamqp.ReceiverOptions{Properties: map[string]any{"com.microsoft:epoch": int64(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plainR.Receive(ctx, nil); condition(err) != "amqp:link:stolen" {
		t.Fatalf("non-epoch receiver after epoch 1: %v, want amqp:link:stolen", err)
	}
	high, err := receiver(ctx, t, s2, "", &goamqp.ReceiverOptions{Properties: map[string]any{"com.microsoft:epoch": int64(5)}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = low.Receive(ctx, nil)
	if condition(err) != "amqp:link:stolen" {
		t.Fatalf("epoch 1 after epoch 5: %v, want amqp:link:stolen", err)
	}
	if _, err := receiver(ctx, t, s1, "", &goamqp.ReceiverOptions{Properties: map[string]any{"com.microsoft:epoch": int64(2)}}); condition(err) != "amqp:link:stolen" {
		t.Fatalf("epoch 2 while epoch 5 holds: %v", err)
	}
	if _, err := receiver(ctx, t, s1, "", nil); condition(err) != "amqp:link:stolen" {
		t.Fatalf("non-epoch while epoch 5 holds: %v", err)
	}
	fill(t, ts, 1)
	if m, err := high.Receive(ctx, nil); err != nil || string(m.GetData()) != "e0" {
		t.Fatalf("epoch 5 receive: %v %v", m, err)
	}
}

// TestUnsettledDeliveriesAreBounded checks that a client that does not
// settle gets no more than MaxUnsettled deliveries, and more once it does.
func TestUnsettledDeliveriesAreBounded(t *testing.T) {
	ts := startServer(t, Options{MaxUnsettled: 3})
	fill(t, ts, 6)
	ctx := testCtx(t)
	s := newSession(t, dial(t, ts, plain()))
	r, err := receiver(ctx, t, s, "amqp.annotation.x-opt-offset > '-1'", &goamqp.ReceiverOptions{
		Credit: 10, SettlementMode: goamqp.ReceiverSettleModeFirst.Ptr(), RequestedSenderSettleMode: goamqp.SenderSettleModeUnsettled.Ptr(),
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []*goamqp.Message
	for range 3 {
		m, err := r.Receive(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = r.Receive(short, nil)
	cancel()
	if err == nil {
		t.Fatal("a fourth delivery arrived with 3 unsettled")
	}
	if err := r.AcceptMessage(ctx, got[0]); err != nil {
		t.Fatal(err)
	}
	m, err := r.Receive(ctx, nil)
	if err != nil || string(m.GetData()) != "e3" {
		t.Fatalf("after settling one: %v %v", m, err)
	}
}
