package api

import (
	"errors"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/eventbody"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/twmb/franz-go/pkg/kgo"
)

// MaxEventBytes caps one event's key, value and headers together, below
// Kafka's default message.max.bytes (1048588) with room for batch framing.
const MaxEventBytes = control.MaxEventBytes

// EventValueNotSupported is the errorCode of an event whose value is a
// JSON object no Delta table could hold: nested deeper than rows.MaxDepth,
// or with a member name rows.CheckName refuses.
const EventValueNotSupported = wire.EventValueNotSupported

// produce serves the Custom HTTP source:
// POST /v1/workspaces/{ws}/eventstreams/{id}/sources/{ds}/events with
// {"events": [{"key"?, "value", "headers"?, "timestamp"?}]} (or
// keyBase64/valueBase64 for bytes that are not text).
//
// Behaviour: the whole body is validated before anything is written; the
// batch goes to Kafka in one Produce request (broker.Produce: up to one
// record batch per partition); the answer lists where every event
// landed. A string value is sent as its UTF-8 bytes, any other JSON value as
// its compact serialisation, and null as a Kafka null value (a tombstone).
func (a dataHandlers) produce(c *call) error {
	sc := eventbody.GetScratch()
	held := false // by a producer that may still send the records
	defer func() {
		if !held {
			sc.Release()
		}
	}()
	lane, records, err := a.produceInput(c, sc)
	if err != nil {
		return eventbody.IngestError(err)
	}
	pos, err := lane.Write(c.r.Context(), records, control.Delivered)
	if err != nil {
		held = errors.As(err, new(*broker.ProduceError))
		return eventbody.IngestError(err)
	}
	sc.Answer = eventbody.AppendProduceAnswer(sc.Answer[:0], lane.Stream.Topic, pos)
	return eventbody.WriteProduceAnswer(c.w, sc.Answer)
}

// produceInput opens the ingest seam's lane into the source while it
// reads and validates the body (both take a while: store queries, and a
// pass over every event), then answers the first error in the order of
// the checks: the source (missing, forbidden, read-only, paused, no
// broker), then the body.
func (a dataHandlers) produceInput(c *call, sc *eventbody.Scratch) (control.Lane, []*kgo.Record, error) {
	type opened struct {
		lane control.Lane
		err  error
	}
	found := make(chan opened, 1)
	go func() {
		l, err := a.cfg.Ingest.Open(c.r.Context(), control.Caller{ID: c.principal},
			control.Target{Workspace: c.r.PathValue("ws"), Eventstream: c.r.PathValue("id"), Node: c.r.PathValue("ds")})
		found <- opened{l, err}
	}()
	body, err := a.readBodyInto(c, sc.Body)
	sc.Body = body
	var records []*kgo.Record
	if err == nil {
		records, err = eventbody.Parse(body, a.cfg.Now(), sc)
	}
	src := <-found
	if src.err != nil {
		return src.lane, nil, src.err
	}
	return src.lane, records, err
}
