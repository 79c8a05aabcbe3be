package drain

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// heldCommits is a cluster whose offset commits can be held: while held,
// each OffsetCommit waits (the broker serving everything else meanwhile)
// until released; while refused, each fails.
type heldCommits struct {
	c       *kfake.Cluster
	held    atomic.Bool
	refused atomic.Bool // answer every commit with an error instead
	release chan struct{}
	commits atomic.Int64 // OffsetCommit requests seen
}

func holdingCluster(t *testing.T) *heldCommits {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	h := &heldCommits{c: c, release: make(chan struct{})}
	c.ControlKey(int16(kmsg.OffsetCommit), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		h.commits.Add(1)
		if h.refused.Load() {
			return refuse(req.(*kmsg.OffsetCommitRequest)), nil, true
		}
		if h.held.Load() {
			c.SleepControl(func() { <-h.release })
		}
		return nil, nil, false // then handled as usual
	})
	return h
}

// refuse answers every partition of req with GROUP_AUTHORIZATION_FAILED.
func refuse(req *kmsg.OffsetCommitRequest) *kmsg.OffsetCommitResponse {
	resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
	for _, rt := range req.Topics {
		st := kmsg.NewOffsetCommitResponseTopic()
		st.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			sp := kmsg.NewOffsetCommitResponseTopicPartition()
			sp.Partition, sp.ErrorCode = rp.Partition, kerr.GroupAuthorizationFailed.Code
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}

// committedOf reads group's committed offsets on topic with a client of its own.
func committedOf(t *testing.T, seeds []string, group, topic string) map[int32]int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	offs, err := kadm.NewClient(cl).FetchOffsets(t.Context(), group)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]int64{}
	offs.Each(func(o kadm.OffsetResponse) {
		if o.Topic == topic && o.Err == nil {
			out[o.Partition] = o.At
		}
	})
	return out
}

// wantCommittedPast fails unless every partition of last is committed at last+1.
func wantCommittedPast(t *testing.T, got, last map[int32]int64, when string) {
	t.Helper()
	for p, o := range last {
		if got[p] != o+1 {
			t.Fatalf("%s: partition %d committed at %d, want %d (all: %v)", when, p, got[p], o+1, got)
		}
	}
}

// merge returns a with b's offsets, the higher per partition.
func merge(a, b map[int32]int64) map[int32]int64 {
	out := map[int32]int64{}
	for _, m := range []map[int32]int64{a, b} {
		for p, o := range m {
			out[p] = max(out[p], o)
		}
	}
	return out
}

// A batch does not wait for the previous batch's offset commit: with the
// group's commits held, batch after batch is delivered; the offsets noted
// meanwhile go in one commit once the held one returns, and Close waits
// for it, so the group's offsets are current when the drain is closed.
func TestDrainCommitsOffTheDeliveryPath(t *testing.T) {
	h := holdingCluster(t)
	seeds := h.c.ListenAddrs()
	sink := &memSink{resume: map[int32]int64{}}
	d, err := Start(t.Context(), Config{Seeds: seeds, Topic: "t", Group: "g-async", Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	h.held.Store(true)
	before := h.commits.Load()
	var last map[int32]int64
	for i := range 3 {
		offs := produce(t, seeds, "t", 10*i, 10)
		last = merge(last, offs)
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		err := d.WaitPast(ctx, offs)
		cancel()
		if err != nil {
			t.Fatalf("batch %d not delivered while a commit is held: %v", i, err)
		}
	}
	waitFor(t, "the first commit at the broker", func() bool { return h.commits.Load() > before })
	if n := h.commits.Load() - before; n != 1 {
		t.Fatalf("%d commits reached the broker while the first was held, want 1", n)
	}
	time.AfterFunc(300*time.Millisecond, func() { close(h.release); h.held.Store(false) })
	d.Close() // waits for the held commit and the one after it
	wantCommittedPast(t, committedOf(t, seeds, "g-async", "t"), last, "after Close")
	if n := h.commits.Load() - before; n != 2 {
		t.Fatalf("%d commits for three batches delivered during one held commit, want 2 (the rest merged)", n)
	}
}

// A drain that StopOnError stops has its group's offsets at the last batch
// it wrote by the time WaitPast reports the stop, even when that batch's
// commit was still out.
func TestDrainStopWaitsForTheLastCommit(t *testing.T) {
	h := holdingCluster(t)
	seeds := h.c.ListenAddrs()
	sink := &memSink{resume: map[int32]int64{}}
	d, err := Start(t.Context(), Config{Seeds: seeds, Topic: "t", Group: "g-stop-commit", Sink: sink, StopOnError: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	h.held.Store(true)
	good := produce(t, seeds, "t", 0, 10)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := d.WaitPast(ctx, good); err != nil {
		t.Fatal(err)
	}
	sink.mu.Lock()
	sink.failN = 1
	sink.mu.Unlock()
	time.AfterFunc(300*time.Millisecond, func() { close(h.release); h.held.Store(false) })
	bad := produce(t, seeds, "t", 10, 10)
	var se *StoppedError
	if err := d.WaitPast(ctx, bad); !errors.As(err, &se) {
		t.Fatalf("WaitPast = %v, want a *StoppedError", err)
	}
	wantCommittedPast(t, committedOf(t, seeds, "g-stop-commit", "t"), good, "when the stop is reported")
}
