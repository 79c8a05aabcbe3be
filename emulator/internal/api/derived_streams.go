package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Derived streams: every DerivedStream of a definition has its own Kafka
// topic {itemId}.{streamId} with one partition, filled by an internal
// binding (type DerivedStream, id the stream's id) whose drain reads the
// DefaultStream, runs the operators up to the DerivedStream and produces
// each output row into the topic (sink_stream.go). Notebooks resolve and
// consume it by the stream's id, and CustomEndpoint destinations that read
// it are served its topic. The internal bindings are never listed: the
// user's destinations are the bindings of every other type.

// DerivedStreamIsReadOnly answers a produce addressed to a DerivedStream:
// its topic holds the operators' output only.
const DerivedStreamIsReadOnly = "DerivedStreamIsReadOnly"

// internal reports whether d is a DerivedStream's internal binding.
func internal(d store.Destination) bool { return d.Type == eventstream.DerivedStreamType }

// userDestinations lists the bindings of Eventstream esID the user sees:
// all but the internal ones.
func (a *API) userDestinations(ctx context.Context, esID string) ([]store.Destination, error) {
	ds, err := a.cfg.Store.ListDestinations(ctx, esID)
	return slices.DeleteFunc(ds, internal), err
}

// applyDerivedStreams reconciles es's DerivedStreams with plan p (es is
// stored with the new streams; old were its streams before): the topics and
// internal bindings of streams that are gone are deleted, the others are
// created or re-pointed at their operator chain.
func (a *API) applyDerivedStreams(ctx context.Context, es store.Item, p *definition.Plan, old []eventstream.Stream) error {
	want := map[string]bool{}
	for _, ps := range p.Derived {
		want[strings.ToLower(ps.Node.ID())] = true
	}
	for _, s := range old {
		if s.Type != eventstream.DerivedStreamType || want[strings.ToLower(s.ID)] {
			continue
		}
		if err := a.rt.Stop(s.ID); err != nil {
			return err
		}
		if err := a.cfg.Store.DeleteDestination(ctx, s.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if a.cfg.Broker.Enabled() {
			if err := a.cfg.Broker.DeleteTopic(ctx, s.Topic); err != nil {
				return kafkaError(err)
			}
		}
	}
	for _, ps := range p.Derived {
		id := ps.Node.ID()
		if a.cfg.Broker.Enabled() {
			s := eventstream.Stream{ID: id, Type: eventstream.DerivedStreamType, Topic: eventstream.DerivedTopic(es.ID, id)}
			if err := a.rt.EnsureStreamTopic(ctx, s); err != nil {
				return err
			}
		}
		spec := eventstream.Spec{Name: ps.Node.Name, OwnOperators: true, Operators: ps.Operators}.Encode()
		d := store.Destination{ID: id, EventstreamID: es.ID, Type: eventstream.DerivedStreamType,
			WorkspaceID: es.WorkspaceID, ItemID: es.ID, Target: id, Spec: spec}
		if _, _, err := a.applyBinding(ctx, d, false); err != nil {
			return fmt.Errorf("start derived stream %s: %w", ps.Node.Name, err)
		}
	}
	return nil
}

// endpointTopic is the topic the Kafka clients of CustomEndpoint node use:
// a source's is the DefaultStream's; a destination's, the topic of the
// stream it reads (the DefaultStream or a DerivedStream).
func endpointTopic(props eventstream.Model, node string) (string, error) {
	if len(props.Streams) == 0 {
		return "", fabricerr.New(http.StatusConflict, "EventstreamNotProvisioned", "the Eventstream has no DefaultStream yet")
	}
	t, err := props.Topology()
	if err != nil {
		return "", err
	}
	if t == nil {
		return props.Streams[0].Topic, nil
	}
	for _, n := range t.Destinations {
		if !strings.EqualFold(n.ID(), node) || len(n.Inputs) != 1 {
			continue
		}
		in := t.ByName[n.Inputs[0]]
		if in == nil || !in.Is(eventstream.DerivedStreamType) {
			break
		}
		if s, ok := props.Stream(in.ID()); ok {
			return s.Topic, nil
		}
		return "", fmt.Errorf("derived stream %q of CustomEndpoint destination %s has no topic", in.Name, node)
	}
	return props.Streams[0].Topic, nil
}
