package drain

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Drains sharing a pool keep their own positions: a drain bound later gets
// only what follows its binding, an earlier one everything since its own,
// each exactly once, over one shared client.
func TestPoolServesDrainsAtTheirOwnPositions(t *testing.T) {
	seeds, topic := cluster(t)
	pool, err := NewPool(seeds, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close(context.Background())
	start := func(group string, sink *memSink) *Drain {
		d, err := Start(t.Context(), Config{Topic: topic, Group: group, Sink: sink, Pool: pool})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	early, late := &memSink{resume: map[int32]int64{}}, &memSink{resume: map[int32]int64{}}
	d1 := start("early", early)
	first := produce(t, seeds, topic, 0, 50)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := d1.WaitPast(ctx, first); err != nil {
		t.Fatal(err)
	}
	d2 := start("late", late)
	second := produce(t, seeds, topic, 50, 50)
	for _, d := range []*Drain{d1, d2} {
		if err := d.WaitPast(ctx, second); err != nil {
			t.Fatal(err)
		}
	}
	if early.count() != 100 || late.count() != 50 {
		t.Fatalf("early drain has %d records, late %d; want 100 and 50", early.count(), late.count())
	}
}

// Closing a pool returns by its deadline even when the cluster stops
// answering with a fetch in flight.
func TestPoolCloseHonoursDeadline(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pool, err := NewPool(c.ListenAddrs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	hung := make(chan struct{}, 1)
	c.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		select {
		case hung <- struct{}{}:
		default:
		}
		return nil, nil, true // read, never answered
	})
	go pool.poll(t.Context(), "t", map[int32]int64{0: 0}, time.Minute)
	select {
	case <-hung:
	case <-time.After(5 * time.Second):
		t.Fatal("no fetch reached the cluster")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	began := time.Now()
	err = pool.Close(ctx)
	if took := time.Since(began); took > 1500*time.Millisecond {
		t.Fatalf("Close took %s (err %v), want at most its 1 s deadline", took, err)
	}
}
