package control

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Stream finds Eventstream id, wherever its workspace, and the stream its
// node ds reads from: a stream of its own, or the DefaultStream for a
// definition's CustomEndpoint source. who needs at least role min in the
// Eventstream's workspace (the notebook routes name no workspace).
func (p *Plane) Stream(ctx context.Context, who Caller, id, ds string, min store.Role) (store.Item, eventstream.Stream, error) {
	it, err := p.cfg.Store.GetItem(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && it.Type != TypeEventstream) {
		err = fabricerr.NotFound(fabricerr.ItemNotFound, "Eventstream", id)
	} else if err == nil {
		err = p.Require(ctx, who, it.WorkspaceID, min)
	}
	if err != nil {
		return it, eventstream.Stream{}, err
	}
	m, err := eventstream.Decode(it)
	if err != nil {
		return it, eventstream.Stream{}, err
	}
	if s, ok := m.Stream(ds); ok {
		return it, s, nil
	}
	// A definition's CustomEndpoint source feeds the DefaultStream.
	if len(m.Streams) > 0 && slices.Contains(m.CustomSources(), strings.ToLower(ds)) {
		return it, m.Streams[0], nil
	}
	return it, eventstream.Stream{}, fabricerr.NotFound(fabricerr.DatasourceNotFound, "Datasource", ds).
		WithDetails(fabricerr.Detail{ErrorCode: fabricerr.DatasourceNotFound,
			Message: "GET the Eventstream item and read properties.streams[0].id for its datasource id"})
}

// OpenStream makes sure stream s can be read: broker.ErrNoBroker without
// a broker, else its topic exists.
func (p *Plane) OpenStream(ctx context.Context, s eventstream.Stream) error {
	if !p.cfg.Broker.Enabled() {
		return broker.ErrNoBroker
	}
	return p.rt.EnsureStreamTopic(ctx, s)
}

// ReadStream reads range rng of stream s (OpenStream first) and counts
// what it read in the stream's data insights. The caller releases the
// batch.
func (p *Plane) ReadStream(ctx context.Context, s eventstream.Stream, rng broker.Range) (*broker.Batch, error) {
	batch, err := p.cfg.Broker.Consume(ctx, s.Topic, rng)
	if err != nil {
		return batch, err
	}
	p.rt.CountConsumed(s.Topic, batch.Records)
	return batch, nil
}
