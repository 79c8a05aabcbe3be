package broker

import (
	"context"
	"fmt"

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

// Produce writes records to topic and returns, in the same order, where
// each landed. Records keep their Key, Value, Headers and Timestamp (now,
// when zero); their Topic, Partition and Offset are set here. The writer
// (writer.go) builds the Produce requests itself: records up to one batch
// per partition (maxBatchBytes, about 1 MB) leave in one Produce request,
// unkeyed ones on one partition, keyed ones on their key's; a bigger
// unkeyed call puts a batch on each further partition in that request, and
// what does not fit follows in later requests, in order. Concurrent calls
// share requests (each call's records whole in one of them).
func (b *Broker) Produce(ctx context.Context, topic string, records []*kgo.Record) ([]Position, error) {
	if !b.Enabled() {
		return nil, ErrNoBroker
	}
	if err := b.EnsureTopic(ctx, topic); err != nil {
		return nil, err
	}
	failures, pending := b.writer.produce(ctx, topic, records)
	if pending > 0 {
		return nil, &ProduceError{Failed: pending, Total: len(records),
			Err: fmt.Errorf("%d records not acknowledged in time and may still be written: %w", pending, ctx.Err())}
	}
	return positions(records, failures)
}

// trust tells the embedded broker's batch check that a producer ID is the
// emulator's own.
func (b *Broker) trust(id int64) {
	if b.check != nil {
		b.check.trust(id)
	}
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
