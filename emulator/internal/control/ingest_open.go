package control

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/google/uuid"
)

// itemTypeEventstream is the item type of an Eventstream.
const itemTypeEventstream = "Eventstream"

// Lane is an authorised way into one stream of an Eventstream: what Open
// found, for the writes that follow. It is a value: opening one allocates
// nothing of its own.
type Lane struct {
	in *Ingest
	// Item is the Eventstream as stored when the lane was opened.
	Item store.Item
	// Stream is the stream the events go to.
	Stream eventstream.Stream
	// Source is the CustomEndpoint source the events come through ("":
	// the produce addressed the stream itself).
	Source string
}

// Open authorises caller to put events into target and checks the target
// takes them now: it exists, it is not a DerivedStream, it is not paused,
// and there is a broker. Its errors are *Error, or the store's failure.
func (in *Ingest) Open(ctx context.Context, caller Caller, target Target) (Lane, error) {
	it, err := in.eventstreamOf(ctx, caller, target)
	if err != nil {
		return Lane{in: in}, err
	}
	m, err := eventstream.Decode(it)
	if err != nil {
		return Lane{in: in, Item: it}, err
	}
	l := Lane{in: in, Item: it}
	node := target.Node
	if caller.Key != nil {
		node = caller.Key.Node
	}
	if l.Stream, l.Source, err = streamOf(m, node); err != nil {
		return l, err
	}
	if caller.Key != nil && (l.Source == "" || !strings.EqualFold(caller.Key.Topic, l.Stream.Topic)) {
		return l, refuse(Forbidden, wire.InsufficientPrivileges, "Source", node,
			"the key %s may not send to %s", caller.Key.KeyID, node)
	}
	return l, in.takes(m, l, node)
}

// eventstreamOf loads the target's Eventstream as caller may see it.
func (in *Ingest) eventstreamOf(ctx context.Context, caller Caller, target Target) (store.Item, error) {
	if caller.Key != nil {
		it, err := in.cfg.Store.GetItem(ctx, caller.Key.Eventstream)
		if errors.Is(err, store.ErrNotFound) {
			return it, refuse(Unauthenticated, wire.AuthenticationFailed, "Eventstream", caller.Key.Eventstream,
				"the Eventstream of key %s is gone", caller.Key.KeyID)
		}
		return it, err
	}
	if err := in.authorise(ctx, caller.ID, target.Workspace); err != nil {
		return store.Item{}, err
	}
	it, err := in.cfg.Store.GetItem(ctx, target.Eventstream)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (it.WorkspaceID != target.Workspace || it.Type != itemTypeEventstream)) {
		return it, notFound(wire.ItemNotFound, "Item", target.Eventstream)
	}
	return it, err
}

// authorise checks that principal holds Contributor or higher in
// workspace ws, as every write of Fabric's Eventstream API needs.
func (in *Ingest) authorise(ctx context.Context, principal, ws string) error {
	if _, err := uuid.Parse(ws); err != nil {
		return notFound(wire.WorkspaceNotFound, "Workspace", ws)
	}
	if _, err := in.cfg.Store.GetWorkspace(ctx, ws); errors.Is(err, store.ErrNotFound) {
		return notFound(wire.WorkspaceNotFound, "Workspace", ws)
	} else if err != nil {
		return err
	}
	role, err := in.cfg.Store.RoleOf(ctx, ws, principal)
	switch {
	case err != nil:
		return err
	case role >= store.RoleContributor:
		return nil
	case role == store.RoleNone:
		return refuse(Forbidden, wire.InsufficientPrivileges, "Workspace", ws,
			"The caller %s has no role in workspace %s", principal, ws)
	}
	return refuse(Forbidden, wire.InsufficientPrivileges, "Workspace", ws,
		"The caller's role %s in workspace %s is not enough: this operation needs %s or higher", role, ws, store.RoleContributor)
}

// streamOf finds the stream node takes events into: node itself when it
// is a stream, the DefaultStream when it is a CustomEndpoint source (then
// source is node).
func streamOf(m eventstream.Model, node string) (s eventstream.Stream, source string, err error) {
	if s, ok := m.Stream(node); ok {
		return s, "", nil
	}
	if len(m.Streams) > 0 && slices.Contains(m.CustomSources(), strings.ToLower(node)) {
		return m.Streams[0], node, nil
	}
	e := notFound(wire.DatasourceNotFound, "Datasource", node)
	e.Hint = "GET the Eventstream item and read properties.streams[0].id for its datasource id"
	return s, "", e
}

// takes refuses a lane whose stream takes no events now.
func (in *Ingest) takes(m eventstream.Model, l Lane, node string) error {
	switch {
	case l.Stream.Type == eventstream.DerivedStreamType:
		return refuse(ReadOnly, wire.DerivedStreamIsReadOnly, eventstream.DerivedStreamType, l.Stream.ID,
			"%s is the DerivedStream %q: its topic holds the output of the operators before it and takes no events; produce into the DefaultStream or a CustomEndpoint source", l.Stream.ID, l.Stream.Name)
	case m.SourcePaused(node, l.Stream.ID):
		return pausedError(l.Item.ID, node)
	case !in.cfg.Broker.Enabled():
		return noBroker()
	}
	return nil
}

// pausedError refuses events for source node of Eventstream es.
func pausedError(es, node string) *Error {
	return refuse(Paused, wire.EventstreamSourcePaused, "Source", node,
		"source %s of Eventstream %s is paused; POST …/eventstreams/%s/sources/{sourceId}/resume (or …/eventstreams/%s/resume) with {\"startType\": \"Now\"} to accept events again",
		node, es, es, es)
}

// noBroker refuses events of an emulator without a broker.
func noBroker() *Error {
	return refuse(NoBroker, wire.KafkaNotConfigured, "", "",
		"this emulator runs without a Kafka broker (--kafka none); restart it with --kafka embedded, "+
			"or attach a cluster with --kafka host:port[,host:port] or FABRIC_KAFKA_BOOTSTRAP")
}
