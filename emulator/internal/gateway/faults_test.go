package gateway

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// faultSeq answers a fault for the first n calls of one API, then none.
type faultSeq struct {
	api   string
	n     int32
	fault Fault
	calls atomic.Int32
	mu    sync.Mutex
	seen  []Grant
}

func (f *faultSeq) check(g Grant, api string) *Fault {
	if api != f.api || f.calls.Add(1) > f.n {
		return nil
	}
	f.mu.Lock()
	f.seen = append(f.seen, g)
	f.mu.Unlock()
	fault := f.fault
	return &fault
}

// TestFetchFaultIsRetriedByTheConsumer: the first three Fetch requests
// are answered with NOT_LEADER_OR_FOLLOWER on every partition (a code
// consumers retry); a franz-go consumer then reads every record once.
func TestFetchFaultIsRetriedByTheConsumer(t *testing.T) {
	fs := &faultSeq{api: "Fetch", n: 3, fault: Fault{ErrorCode: kerr.NotLeaderForPartition.Code}}
	e := newEnvWith(t, []Option{WithFaults(fs.check)})
	pass := e.grant("k1", testTopic, "")
	want := makeRecords(testTopic, "fetchfault", 20)
	if err := e.client(pass).ProduceSync(testCtx(t), want...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cons := e.client(pass, kgo.ConsumeTopics(testTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	sameRecords(t, consume(testCtx(t), t, cons, len(want)), want)
	if fs.calls.Load() <= 3 {
		t.Fatalf("%d Fetch requests, want more than the 3 refused", fs.calls.Load())
	}
	if len(fs.seen) != 3 || fs.seen[0].KeyID != "k1" {
		t.Fatalf("faults told grants %+v", fs.seen)
	}
}

// TestProduceFaultWritesNothing: a Produce answered with an injected
// error reaches no broker: with retries off, the producer's record fails
// with that error and the topic stays empty.
func TestProduceFaultWritesNothing(t *testing.T) {
	fs := &faultSeq{api: "Produce", n: 100, fault: Fault{ErrorCode: kerr.PolicyViolation.Code}}
	e := newEnvWith(t, []Option{WithFaults(fs.check)})
	pass := e.grant("k1", testTopic, "")
	cl := e.client(pass, kgo.RecordRetries(0), kgo.RecordDeliveryTimeout(2*time.Second))
	err := cl.ProduceSync(testCtx(t), &kgo.Record{Topic: testTopic, Value: []byte("x")}).FirstErr()
	if !errors.Is(err, kerr.PolicyViolation) {
		t.Fatalf("produce: %v, want POLICY_VIOLATION", err)
	}
	ends, err := e.direct().ListEndOffsets(testCtx(t), testTopic)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	ends.Each(func(o kadm.ListedOffset) { total += o.Offset })
	if total != 0 {
		t.Fatalf("the topic holds %d records after refused produces", total)
	}
}
