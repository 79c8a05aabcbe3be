package control

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Derived streams: every DerivedStream of a definition has its own Kafka
// topic {itemId}.{streamId} with one partition, filled by an internal
// binding (type DerivedStream, id the stream's id) whose drain reads the
// DefaultStream, runs the operators up to the DerivedStream and produces
// each output row into the topic. Notebooks resolve and consume it by the
// stream's id, and CustomEndpoint destinations that read it are served its
// topic. The internal bindings are never listed: the user's destinations
// are the bindings of every other type.

// storeDerivedStreams reconciles es's DerivedStreams with plan p (es is
// stored with the new streams; old were its streams before): the topics and
// internal bindings of streams that are gone are deleted, the others'
// topics are made and their bindings created or re-pointed at their
// operator chain, to start with the plan's Sync. It returns the bindings
// it created.
func (p *Plane) storeDerivedStreams(ctx context.Context, es store.Item, plan *definition.Plan, old []eventstream.Stream) ([]store.Destination, error) {
	want := map[string]bool{}
	for _, ps := range plan.Derived {
		want[strings.ToLower(ps.Node.ID())] = true
	}
	for _, s := range old {
		if s.Type != eventstream.DerivedStreamType || want[strings.ToLower(s.ID)] {
			continue
		}
		if err := p.dropDerivedStream(ctx, s); err != nil {
			return nil, err
		}
	}
	var created []store.Destination
	for _, ps := range plan.Derived {
		id := ps.Node.ID()
		if p.cfg.Broker.Enabled() {
			s := eventstream.Stream{ID: id, Type: eventstream.DerivedStreamType, Topic: eventstream.DerivedTopic(es.ID, id)}
			if err := p.rt.EnsureStreamTopic(ctx, s); err != nil {
				return nil, err
			}
		}
		spec := eventstream.Spec{Name: ps.Node.Name, OwnOperators: true, Operators: ps.Operators}.Encode()
		d := store.Destination{ID: id, EventstreamID: es.ID, Type: eventstream.DerivedStreamType,
			WorkspaceID: es.WorkspaceID, ItemID: es.ID, Target: id, Spec: spec}
		d, isNew, _, err := p.storeBinding(ctx, d, false)
		if err != nil {
			return nil, fmt.Errorf("store derived stream %s: %w", ps.Node.Name, err)
		}
		if isNew {
			created = append(created, d)
		}
	}
	return created, nil
}

// dropDerivedStream stops and deletes DerivedStream s's internal binding
// and its topic.
func (p *Plane) dropDerivedStream(ctx context.Context, s eventstream.Stream) error {
	if err := p.rt.Stop(s.ID); err != nil {
		return err
	}
	if err := p.cfg.Store.DeleteDestination(ctx, s.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if !p.cfg.Broker.Enabled() {
		return nil
	}
	if err := p.cfg.Broker.DeleteTopic(ctx, s.Topic); err != nil {
		return runtime.KafkaError(err)
	}
	return nil
}
