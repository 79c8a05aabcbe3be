package broker

import (
	"context"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Position is where one produced record landed.
type Position struct {
	Partition int32 `json:"partition"`
	Offset    int64 `json:"offset"`
}

// ProduceError reports a produce in which some records were not
// acknowledged by the broker, so a caller never reports them as produced.
type ProduceError struct {
	Failed, Total int
	Err           error
}

func (e *ProduceError) Error() string {
	return fmt.Sprintf("produce: %d of %d records failed: %v", e.Failed, e.Total, e.Err)
}

func (e *ProduceError) Unwrap() error { return e.Err }

// Produce writes records to topic in one batched call and returns, in the
// same order, where each landed. Records keep their Key, Value, Headers and
// Timestamp; their Topic and Context are set here. The call has a pooled
// producer of its own that sends nothing before every record is
// partitioned: records up to one batch per partition (ProducerBatchMaxBytes,
// about 1 MB) leave in one Produce request, unkeyed ones on one partition,
// keyed ones on their key's; a bigger unkeyed call puts a batch on each
// further partition in that request, and what does not fit follows in later
// requests, in order.
func (b *Broker) Produce(ctx context.Context, topic string, records []*kgo.Record) ([]Position, error) {
	if !b.Enabled() {
		return nil, ErrNoBroker
	}
	if err := b.EnsureTopic(ctx, topic); err != nil {
		return nil, err
	}
	cl, err := b.producers.get(ctx)
	if err != nil {
		return nil, &ProduceError{Failed: len(records), Total: len(records), Err: err}
	}
	failures, pending := send(ctx, cl, topic, records)
	if pending > 0 {
		// The producer may still hold records: it is not lent again. Closing
		// it fails those not sent; those in flight may land.
		b.producers.discard(cl)
		return nil, &ProduceError{Failed: pending, Total: len(records),
			Err: fmt.Errorf("%d records not acknowledged in time and may still be written: %w", pending, ctx.Err())}
	}
	b.trust(ctx, cl)
	b.producers.put(cl)
	return positions(records, failures)
}

// trust tells the embedded broker's batch check that cl's batches are the
// emulator's own, once cl has its producer ID (its first call loads it).
func (b *Broker) trust(ctx context.Context, cl *kgo.Client) {
	if b.check == nil {
		return
	}
	if id, _, err := cl.ProducerID(ctx); err == nil && id >= 0 { // -1: not idempotent, every client's
		b.check.trust(id)
	}
}

// send produces records to topic on cl, then flushes, and waits for every
// acknowledgement but no longer than ctx. It returns the records that
// failed, and how many were not acknowledged in time.
func send(ctx context.Context, cl *kgo.Client, topic string, records []*kgo.Record) (map[*kgo.Record]error, int) {
	var mu sync.Mutex
	failures := map[*kgo.Record]error{}
	pending := len(records)
	done := make(chan struct{})
	buffered := newCallWait(len(records))
	promise := func(r *kgo.Record, err error) { // one for all records
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failures[r] = err
			buffered.settle() // failed before buffering, as a rule
		}
		if pending--; pending == 0 {
			close(done)
		}
	}
	rctx := buffered.into(ctx)
	for _, r := range records {
		r.Topic, r.Context = topic, rctx
		cl.Produce(rctx, r, promise)
	}
	if len(records) == 0 {
		close(done)
	}
	// Flush once every record is partitioned: records waiting for the
	// topic's metadata would otherwise leave as they are partitioned.
	select {
	case <-buffered.ready:
	case <-ctx.Done():
	}
	if cl.Flush(ctx) == nil {
		select { // a record failed before buffering may still be promising
		case <-done:
		case <-ctx.Done():
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if pending > 0 {
		return nil, pending
	}
	return failures, 0
}

// positions answers where records landed, or the ProduceError naming how
// many failed and the first failure.
func positions(records []*kgo.Record, failures map[*kgo.Record]error) ([]Position, error) {
	pos := make([]Position, len(records))
	failed := 0
	var first error
	for i, r := range records {
		if err, ok := failures[r]; ok {
			failed++
			if first == nil {
				first = err
			}
			pos[i] = Position{Partition: -1, Offset: -1}
			continue
		}
		pos[i] = Position{Partition: r.Partition, Offset: r.Offset}
	}
	if failed > 0 {
		return nil, &ProduceError{Failed: failed, Total: len(records), Err: first}
	}
	return pos, nil
}
