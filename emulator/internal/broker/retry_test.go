package broker

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestCommitGroupOffsetsWaitsOutCoordinatorErrors: a broker that answers
// its first 10 OffsetCommit requests with COORDINATOR_NOT_AVAILABLE (as
// Apache Kafka does while it creates __consumer_offsets) does not fail
// CommitGroupOffsets: the commit is retried and lands.
func TestCommitGroupOffsetsWaitsOutCoordinatorErrors(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	// More refusals than franz-go's own retries of the request wait out
	// (it gave up after 4 here): only the emulator's retry outlasts them.
	const refusals = 10
	var refused atomic.Int32
	c.ControlKey(int16(kmsg.OffsetCommit), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if refused.Load() >= refusals {
			return nil, nil, false
		}
		c.KeepControl()
		refused.Add(1)
		r := req.(*kmsg.OffsetCommitRequest)
		resp := r.ResponseKind().(*kmsg.OffsetCommitResponse)
		resp.SetVersion(r.Version)
		for _, tp := range r.Topics {
			rt := kmsg.NewOffsetCommitResponseTopic()
			rt.Topic, rt.TopicID = tp.Topic, tp.TopicID
			for _, p := range tp.Partitions {
				rp := kmsg.NewOffsetCommitResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p.Partition, kerr.CoordinatorNotAvailable.Code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil, true
	})
	b, err := External(c.ListenAddrs())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := b.CommitGroupOffsets(ctx, "g", "t", map[int32]int64{0: 0, 1: 0}); err != nil {
		t.Fatalf("commit after %d refusals: %v", refused.Load(), err)
	}
	if refused.Load() != refusals {
		t.Fatalf("%d refusals seen, want %d", refused.Load(), refusals)
	}
}

// TestRetryingStopsAtAnErrorNotRetriable: an error Kafka does not mark
// retriable ends the retries at once.
func TestRetryingStopsAtAnErrorNotRetriable(t *testing.T) {
	calls := 0
	err := Retrying(context.Background(), func() error {
		calls++
		if calls < 3 {
			return kerr.CoordinatorLoadInProgress
		}
		return kerr.GroupAuthorizationFailed
	})
	if !errors.Is(err, kerr.GroupAuthorizationFailed) || calls != 3 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
}
