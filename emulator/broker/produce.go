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

// ProduceError reports a produce in which some records were not written.
// Written lists the positions of those the broker acknowledged (-1 offsets
// for the others), so a caller never reports as produced what was not.
type ProduceError struct {
	Failed  int
	Written []Position
	Err     error
}

func (e *ProduceError) Error() string {
	return fmt.Sprintf("produce: %d of %d records failed: %v", e.Failed, len(e.Written), e.Err)
}

func (e *ProduceError) Unwrap() error { return e.Err }

// Produce writes records to topic in one batched call and returns, in the
// same order, where each landed. Records keep their Key, Value, Headers and
// Timestamp; their Topic is set here.
func (b *Broker) Produce(ctx context.Context, topic string, records []*kgo.Record) ([]Position, error) {
	if !b.Enabled() {
		return nil, ErrNoBroker
	}
	if err := b.EnsureTopic(ctx, topic); err != nil {
		return nil, err
	}
	for _, r := range records {
		r.Topic = topic
	}
	// Results arrive in completion order; the records themselves carry
	// their partition and offset, so positions are read off them in order.
	failures := map[*kgo.Record]error{}
	for _, r := range b.client.ProduceSync(ctx, records...) {
		if r.Err != nil {
			failures[r.Record] = r.Err
		}
	}
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
		return pos, &ProduceError{Failed: failed, Written: pos, Err: first}
	}
	return pos, nil
}
