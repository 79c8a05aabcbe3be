package control

import (
	"context"
	"errors"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/rows"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/twmb/franz-go/pkg/kgo"
)

// MaxEventBytes caps one event's key, value and headers together: Fabric's
// 1 MB per event, below Kafka's default message.max.bytes (1048588) with
// room for batch framing.
const MaxEventBytes = rows.MaxEventBytes

// EventSize is what MaxEventBytes caps: r's key, value and header bytes.
func EventSize(r *kgo.Record) int {
	size := len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		size += len(h.Key) + len(h.Value)
	}
	return size
}

// CheckEvent applies the per-event limits to event i, r: its size, and a
// value that becomes a table row (a JSON object) must fit package rows'
// limits. fitsRow tells that the door already saw the value pass (it read
// it while decoding), to spare a second reading. Its error is an *Error
// with Index i whose Message is what is wrong with the event, for the door
// to put after its own name of it; for Unsupported, ResourceID is the path
// inside the value ("" for the value itself).
func CheckEvent(i int, r *kgo.Record, fitsRow bool) error {
	if size := EventSize(r); size > MaxEventBytes {
		e := refuse(TooLarge, wire.EventTooLarge, "", "",
			"is %d bytes; one event's key, value and headers may total at most %d bytes", size, MaxEventBytes)
		e.Index = i
		return e
	}
	if fitsRow {
		return nil
	}
	var le *rows.LimitError
	if err := rows.CheckValue(r.Value); !errors.As(err, &le) {
		return nil
	}
	e := refuse(Unsupported, wire.EventValueNotSupported, "", le.Path,
		"%s; an event that becomes a table row must nest objects and arrays at most %d levels deep and name its members with no control characters, not empty or blank, so that Delta readers can read the table",
		le.Reason, rows.MaxDepth)
	e.Index = i
	return e
}

// Write puts records into the lane's stream, counts them (the rule in
// Ingest's documentation) and, with Delivered, waits for the Eventstream's
// destinations. The records are the door's: each already passed
// CheckEvent. A broker failure is an *Error of Kind Unavailable wrapping
// the broker's error (a *broker.ProduceError when the broker may still
// hold some of the records: the door must not reuse them).
func (l Lane) Write(ctx context.Context, records []*kgo.Record, d Delivery) ([]broker.Position, error) {
	wctx, cancel := context.WithTimeout(ctx, l.in.cfg.ProduceTimeout)
	pos, err := l.in.brokerUnreachable(l)
	if err == nil {
		pos, err = l.in.cfg.Broker.Produce(wctx, l.Stream.Topic, records)
	}
	cancel()
	if err != nil {
		return nil, brokerError(err, len(records))
	}
	l.in.cfg.Runtime.CountProduced(l.Stream.Topic, l.Source, records)
	if d == Delivered {
		if err := l.in.cfg.Runtime.Await(ctx, l.Item.ID, pos); err != nil {
			return pos, err
		}
	}
	return pos, nil
}

// Forwarded counts n events of valueBytes value bytes that a door
// authenticated with g forwarded to the broker itself (the Kafka gateway
// passes the client's record batches on as they are), by the same rule as
// Write: g's node is the CustomEndpoint source they came through.
func (in *Ingest) Forwarded(g Grant, n, valueBytes int64) {
	if !g.Listen {
		in.cfg.Runtime.CountIngested(g.Topic, g.Node, n, valueBytes)
	}
}

// brokerError words a failed produce of total records.
func brokerError(err error, total int) error {
	if errors.Is(err, broker.ErrNoBroker) {
		return noBroker()
	}
	var pe *broker.ProduceError
	if errors.As(err, &pe) {
		e := refuse(Unavailable, wire.KafkaUnavailable, "", "",
			"the Kafka broker did not accept %d of %d events (%d were written): %v", pe.Failed, total, total-pe.Failed, pe.Err)
		e.Err = err
		return e
	}
	e := refuse(Unavailable, wire.KafkaUnavailable, "", "", "the Kafka broker failed: %v", err)
	e.Err = err
	return e
}
