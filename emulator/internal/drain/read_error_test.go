package drain

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestDrainReportsReadErrorsUntilKafkaAnswers checks that a drain whose
// fetches fail (a lost broker) says so in Status.ReadErr, goes on trying,
// and clears the error and delivers what was produced meanwhile once the
// fetches succeed again.
func TestDrainReportsReadErrorsUntilKafkaAnswers(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	var down atomic.Bool
	c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !down.Load() {
			return nil, nil, false
		}
		resp := req.ResponseKind().(*kmsg.FetchResponse)
		resp.ErrorCode = kerr.NotLeaderForPartition.Code
		return resp, nil, true
	})
	sink := &memSink{resume: map[int32]int64{}}
	d, err := Start(context.Background(), Config{Seeds: c.ListenAddrs(), Topic: "t", Group: "g", Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	down.Store(true)
	produce(t, c.ListenAddrs(), "t", 0, 30)
	waitFor(t, "a read error in Status", func() bool { return d.Status().ReadErr != nil })
	if sink.count() != 0 {
		t.Fatalf("delivered %d records while every fetch failed", sink.count())
	}
	down.Store(false)
	waitFor(t, "the read error cleared and 30 records delivered", func() bool {
		return d.Status().ReadErr == nil && sink.count() == 30
	})
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
