package broker

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Settings of the pooled producers.
const (
	// producers bounds the producers (each a connection and a producer
	// ID); a call beyond waits for one to be free. With producerSettle it
	// bounds the calls a second: 64 rested producers let calls follow
	// each other up to 1,280 a second without waiting.
	producers = 64
	// producerSettle is how long a producer rests between two calls.
	// franz-go's send loop (its sink's drain) may run one more pass after
	// sending a call's request; a pass that ran after the next call began
	// buffering would send the records buffered so far on their own. The
	// pass follows the request at once, so a producer that rested for a
	// while has none left, and producers take turns (the one that rested
	// longest goes next).
	producerSettle = 50 * time.Millisecond
	// maxCallRecords bounds one call's records (kgo.MaxBufferedRecords;
	// with manual flushing more fail with kgo.ErrMaxBuffered): above any
	// count the produce route's 16 MiB body can hold.
	maxCallRecords = 16 << 20
)

// producerOpts are the settings of a pooled producer: nothing leaves before
// the call's Flush, which sends the call's batches, one per partition, in
// one Produce request (callPartitioner), with acks=all from an idempotent
// producer.
func producerOpts() []kgo.Opt {
	return []kgo.Opt{
		kgo.ManualFlushing(),
		kgo.RecordPartitioner(callPartitioner{}),
		kgo.WithHooks(partitionedHook{}),
		producerAcks(),
		kgo.MaxBufferedRecords(maxCallRecords),
		kgo.RequestRetries(3),
	}
}

// callWait counts down the records of one Produce call until each is
// partitioned or has failed; ready closes then.
type callWait struct {
	left  atomic.Int64
	ready chan struct{}
}

// callWaitKey is the context key of a record's callWait.
type callWaitKey struct{}

// newCallWait waits for n records.
func newCallWait(n int) *callWait {
	w := &callWait{ready: make(chan struct{})}
	if w.left.Store(int64(n)); n == 0 {
		close(w.ready)
	}
	return w
}

// into returns ctx carrying w, for the call's records' Context.
func (w *callWait) into(ctx context.Context) context.Context {
	return context.WithValue(ctx, callWaitKey{}, w)
}

// settle counts one record down. A record that fails after it was
// partitioned (its partition lost before the Flush) counts twice and may
// let the Flush start before the last record is partitioned: the call then
// leaves in more than one request, in order.
func (w *callWait) settle() {
	if w.left.Add(-1) == 0 {
		close(w.ready)
	}
}

// partitionedHook settles a record's callWait once franz-go has put the
// record in its partition's batch (kgo.HookProduceRecordPartitioned).
type partitionedHook struct{}

// OnProduceRecordPartitioned implements kgo.HookProduceRecordPartitioned.
func (partitionedHook) OnProduceRecordPartitioned(r *kgo.Record, _ int32) {
	if w, ok := r.Context.Value(callWaitKey{}).(*callWait); ok {
		w.settle()
	}
}
