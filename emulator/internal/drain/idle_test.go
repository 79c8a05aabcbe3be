package drain

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Idle drains cost the broker few fetches: twenty drains idle for three
// seconds make a handful of shared fetches (the wait grows to
// idleFetchWait), not one per drain per tick, and a record produced then
// is still delivered at once (the broker answers the waiting fetch when
// it arrives), well within idleFetchWait.
func TestIdleDrainsFetchRarelyAndDeliverAtOnce(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var fetches atomic.Int64
	c.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		fetches.Add(1)
		return nil, nil, false // counted, then handled as usual
	})
	seeds := c.ListenAddrs()
	pool, err := NewPool(seeds, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close(context.Background())
	var drains []*Drain
	sinks := make([]*memSink, 20)
	for i := range sinks {
		sinks[i] = &memSink{resume: map[int32]int64{}}
		d, err := Start(t.Context(), Config{Topic: "t", Group: "g" + string(rune('a'+i)), Sink: sinks[i], Pool: pool})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		drains = append(drains, d)
	}
	time.Sleep(time.Second) // the waits grow
	before := fetches.Load()
	time.Sleep(3 * time.Second)
	if n := fetches.Load() - before; n > 6 {
		t.Errorf("20 idle drains made %d fetches in 3 s, want at most 6 (one shared fetch waiting up to %s)", n, idleFetchWait)
	}
	offs := produce(t, seeds, "t", 0, 1)
	began := time.Now() // acknowledged: the waiting fetch can see it
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for _, d := range drains {
		if err := d.WaitPast(ctx, offs); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(began); took > idleFetchWait/2 {
		t.Errorf("an event reached 20 idle drains in %s, want well within the idle fetch wait (%s)", took, idleFetchWait)
	}
}
