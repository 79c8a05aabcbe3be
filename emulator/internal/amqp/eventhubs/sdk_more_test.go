package eventhubs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azeventhubs"
)

// memoryCheckpoints is an in-memory azeventhubs.CheckpointStore.
type memoryCheckpoints struct {
	mu          sync.Mutex
	n           int
	ownership   map[string]azeventhubs.Ownership
	checkpoints map[string]azeventhubs.Checkpoint
}

// newMemoryCheckpoints returns an empty store.
func newMemoryCheckpoints() *memoryCheckpoints {
	return &memoryCheckpoints{ownership: map[string]azeventhubs.Ownership{}, checkpoints: map[string]azeventhubs.Checkpoint{}}
}

// ClaimOwnership grants every claim whose ETag matches the stored one.
func (m *memoryCheckpoints) ClaimOwnership(_ context.Context, claims []azeventhubs.Ownership, _ *azeventhubs.ClaimOwnershipOptions) ([]azeventhubs.Ownership, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []azeventhubs.Ownership
	for _, o := range claims {
		cur, ok := m.ownership[o.PartitionID]
		if ok && (o.ETag == nil || cur.ETag == nil || *o.ETag != *cur.ETag) {
			continue
		}
		m.n++
		tag := azcore.ETag(fmt.Sprint(m.n))
		o.ETag, o.LastModifiedTime = &tag, time.Now()
		m.ownership[o.PartitionID] = o
		out = append(out, o)
	}
	return out, nil
}

// ListCheckpoints lists the checkpoints.
func (m *memoryCheckpoints) ListCheckpoints(context.Context, string, string, string, *azeventhubs.ListCheckpointsOptions) ([]azeventhubs.Checkpoint, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []azeventhubs.Checkpoint
	for _, c := range m.checkpoints {
		out = append(out, c)
	}
	return out, nil
}

// ListOwnership lists the ownerships.
func (m *memoryCheckpoints) ListOwnership(context.Context, string, string, string, *azeventhubs.ListOwnershipOptions) ([]azeventhubs.Ownership, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []azeventhubs.Ownership
	for _, o := range m.ownership {
		out = append(out, o)
	}
	return out, nil
}

// SetCheckpoint stores a checkpoint.
func (m *memoryCheckpoints) SetCheckpoint(_ context.Context, c azeventhubs.Checkpoint, _ *azeventhubs.SetCheckpointOptions) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.checkpoints[c.PartitionID] = c
	return nil
}

// TestSDKProcessorCheckpoints runs an azeventhubs Processor with an
// in-memory checkpoint store over both partitions.
func TestSDKProcessorCheckpoints(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := sdkContext(t)
	for p, n := range []int{3, 2} {
		var evs []Event
		for i := range n {
			evs = append(evs, Event{Body: []byte(fmt.Sprintf("p%d-%d", p, i))})
		}
		ts.host.Send(ctx, Grant{}, "es", p, evs)
	}
	consumer, err := azeventhubs.NewConsumerClientFromConnectionString(ts.connString("key_x", testKey), "", azeventhubs.DefaultConsumerGroup, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close(ctx)
	store := newMemoryCheckpoints()
	earliest := true
	proc, err := azeventhubs.NewProcessor(consumer, store, &azeventhubs.ProcessorOptions{
		LoadBalancingStrategy: azeventhubs.ProcessorStrategyGreedy,
		StartPositions:        azeventhubs.StartPositions{Default: azeventhubs.StartPosition{Earliest: &earliest}},
	})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go proc.Run(runCtx)
	got := make(chan string, 10)
	for range 2 {
		pc := proc.NextPartitionClient(ctx)
		if pc == nil {
			t.Fatal("the processor handed out no partition client")
		}
		go func() {
			defer pc.Close(ctx)
			for {
				rctx, cancel := context.WithTimeout(runCtx, 200*time.Millisecond)
				evs, err := pc.ReceiveEvents(rctx, 10, nil)
				cancel()
				for _, e := range evs {
					got <- string(e.Body)
				}
				if len(evs) > 0 {
					pc.UpdateCheckpoint(ctx, evs[len(evs)-1], nil)
				}
				if err != nil && runCtx.Err() != nil {
					return
				}
			}
		}()
	}
	seen := map[string]bool{}
	for len(seen) < 5 {
		select {
		case b := <-got:
			seen[b] = true
		case <-ctx.Done():
			t.Fatalf("processor received only %v", seen)
		}
	}
	waitFor(t, func() bool {
		store.mu.Lock()
		defer store.mu.Unlock()
		c0, c1 := store.checkpoints["0"], store.checkpoints["1"]
		return c0.SequenceNumber != nil && *c0.SequenceNumber == 2 && c1.SequenceNumber != nil && *c1.SequenceNumber == 1
	})
}

// TestSDKOwnerLevelTakesOver checks that a PartitionClient with a higher
// owner level makes the first one fail with ErrorCodeOwnershipLost.
func TestSDKOwnerLevelTakesOver(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := sdkContext(t)
	consumer, err := azeventhubs.NewConsumerClientFromConnectionString(ts.connString("key_x", testKey), "", azeventhubs.DefaultConsumerGroup, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close(ctx)
	earliest := true
	open := func(level int64) *azeventhubs.PartitionClient {
		pc, err := consumer.NewPartitionClient("0", &azeventhubs.PartitionClientOptions{StartPosition: azeventhubs.StartPosition{Earliest: &earliest}, OwnerLevel: &level})
		if err != nil {
			t.Fatal(err)
		}
		return pc
	}
	low := open(1)
	defer low.Close(ctx)
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	low.ReceiveEvents(short, 1, nil) // attaches the link
	cancel()
	high := open(2)
	defer high.Close(ctx)
	short, cancel = context.WithTimeout(ctx, 200*time.Millisecond)
	high.ReceiveEvents(short, 1, nil)
	cancel()
	_, err = low.ReceiveEvents(ctx, 1, nil)
	var ehErr *azeventhubs.Error
	if !errors.As(err, &ehErr) || ehErr.Code != azeventhubs.ErrorCodeOwnershipLost {
		t.Fatalf("the lower owner level got %v, want ErrorCodeOwnershipLost", err)
	}
}

// TestSDKConsumerFromOffsetAndTime starts partition clients at an offset
// and at an enqueued time.
func TestSDKConsumerFromOffsetAndTime(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := sdkContext(t)
	ts.host.Send(ctx, Grant{}, "es", 0, []Event{{Body: []byte("a")}, {Body: []byte("bb")}})
	time.Sleep(5 * time.Millisecond)
	ts.host.Send(ctx, Grant{}, "es", 0, []Event{{Body: []byte("ccc")}})
	stored := ts.host.events("es", 0)
	consumer, err := azeventhubs.NewConsumerClientFromConnectionString(ts.connString("key_x", testKey), "", azeventhubs.DefaultConsumerGroup, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close(ctx)
	off := stored[0].Offset
	if got := receive(ctx, t, consumer, azeventhubs.StartPosition{Offset: &off}, 1); string(got[0].Body) != "bb" {
		t.Fatalf("after offset %d got %q, want bb", off, got[0].Body)
	}
	at := stored[2].EnqueuedTime
	if got := receive(ctx, t, consumer, azeventhubs.StartPosition{EnqueuedTime: &at, Inclusive: true}, 1); string(got[0].Body) != "ccc" {
		t.Fatalf("from time %v got %q, want ccc", at, got[0].Body)
	}
}

// TestSDKConsumerIsNotHeldByTheUnsettledBound receives more events than
// MaxUnsettled with azeventhubs, which never settles: the door sends them
// settled, as Event Hubs does.
func TestSDKConsumerIsNotHeldByTheUnsettledBound(t *testing.T) {
	ts := startServer(t, Options{MaxUnsettled: 4})
	ctx := sdkContext(t)
	var evs []Event
	for i := range 12 {
		evs = append(evs, Event{Body: []byte(fmt.Sprint(i))})
	}
	ts.host.Send(ctx, Grant{}, "es", 0, evs)
	consumer, err := azeventhubs.NewConsumerClientFromConnectionString(ts.connString("key_x", testKey), "", azeventhubs.DefaultConsumerGroup, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close(ctx)
	earliest := true
	got := receive(ctx, t, consumer, azeventhubs.StartPosition{Earliest: &earliest}, 12)
	if string(got[11].Body) != "11" {
		t.Fatalf("last event %q", got[11].Body)
	}
}

// TestSDKProducerToThirtyTwoPartitions sends to every partition of a
// 32-partition hub with one producer, which keeps a session per partition
// link: the default bounds must let it.
func TestSDKProducerToThirtyTwoPartitions(t *testing.T) {
	ts := startServer(t, Options{})
	ts.host.addHub("big", 32)
	ctx := sdkContext(t)
	cs := fmt.Sprintf("Endpoint=sb://%s;SharedAccessKeyName=key_x;SharedAccessKey=%s;EntityPath=big;UseDevelopmentEmulator=true", ts.addr, testKey)
	noRetry := &azeventhubs.ProducerClientOptions{RetryOptions: azeventhubs.RetryOptions{MaxRetries: -1}}
	producer, err := azeventhubs.NewProducerClientFromConnectionString(cs, "", noRetry)
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close(ctx)
	for p := range 32 {
		pid := fmt.Sprint(p)
		b, err := producer.NewEventDataBatch(ctx, &azeventhubs.EventDataBatchOptions{PartitionID: &pid})
		if err != nil {
			t.Fatalf("partition %d: %v", p, err)
		}
		b.AddEventData(&azeventhubs.EventData{Body: []byte(pid)}, nil)
		if err := producer.SendEventDataBatch(ctx, b, nil); err != nil {
			t.Fatalf("partition %d: %v", p, err)
		}
	}
	for p := range 32 {
		if evs := ts.host.events("big", p); len(evs) != 1 || string(evs[0].Body) != fmt.Sprint(p) {
			t.Fatalf("partition %d holds %d events", p, len(evs))
		}
	}
}
