package control

import (
	"context"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// Open answers the checks in the HTTP route's order: workspace, role,
// item, node; then read-only, paused, broker.
func TestOpenRefusesInTheOrderOfItsChecks(t *testing.T) {
	f := newFixture(t, broker.None())
	ctx := context.Background()
	as := func(p string) Caller { return Caller{ID: p} }
	for _, tc := range []struct {
		name   string
		caller Caller
		target Target
		kind   Kind
		code   wire.ErrorCode
	}{
		{"workspace not a GUID", as(writer), Target{"ws", esID, dsID}, NotFound, wire.WorkspaceNotFound},
		{"unknown workspace", as(writer), Target{"0b7c3a52-5f0c-4a8e-9c61-3f2a9d3e1b11", esID, dsID}, NotFound, wire.WorkspaceNotFound},
		{"no role", as("stranger"), Target{wsID, esID, dsID}, Forbidden, wire.InsufficientPrivileges},
		{"viewer", as(reader), Target{wsID, esID, dsID}, Forbidden, wire.InsufficientPrivileges},
		{"unknown item", as(writer), Target{wsID, "nope", dsID}, NotFound, wire.ItemNotFound},
		{"unknown node", as(writer), Target{wsID, esID, "nope"}, NotFound, wire.DatasourceNotFound},
		{"destination is no source", as(writer), Target{wsID, esID, dstID}, NotFound, wire.DatasourceNotFound},
		{"no broker", as(writer), Target{wsID, esID, srcID}, NoBroker, wire.KafkaNotConfigured},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.in.Open(ctx, tc.caller, tc.target)
			wantKind(t, err, tc.kind, tc.code)
		})
	}
	_, err := f.in.Open(ctx, as(writer), Target{wsID, esID, "nope"})
	if e := wantKind(t, err, NotFound, wire.DatasourceNotFound); e.Hint == "" || e.ResourceID != "nope" {
		t.Errorf("datasource not found without a hint or resource: %+v", e)
	}
}

// A paused source, a stream whose every CustomEndpoint source is paused,
// and a DerivedStream take no events.
func TestOpenRefusesPausedAndDerived(t *testing.T) {
	f := newFixture(t, broker.None())
	ctx := context.Background()
	writerCall := Caller{ID: writer}
	f.update(t, func(m *eventstream.Model) { m.SetPaused(true, srcID) })
	for _, node := range []string{srcID, "AAAA-SRC", dsID} {
		_, err := f.in.Open(ctx, writerCall, Target{wsID, esID, node})
		wantKind(t, err, Paused, wire.EventstreamSourcePaused)
	}
	f.update(t, func(m *eventstream.Model) {
		m.SetPaused(false, srcID)
		m.Streams = append(m.Streams, eventstream.Stream{ID: "hot", Name: "hot", Type: eventstream.DerivedStreamType, Topic: "es-1.hot"})
	})
	_, err := f.in.Open(ctx, writerCall, Target{wsID, esID, "hot"})
	wantKind(t, err, ReadOnly, wire.DerivedStreamIsReadOnly)
}

// A lane into a CustomEndpoint source goes to the DefaultStream and names
// the source; one into the stream itself names none.
func TestOpenFindsStreamAndSource(t *testing.T) {
	b, err := broker.Embedded(broker.EmbeddedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	f := newFixture(t, b)
	ctx := context.Background()
	l, err := f.in.Open(ctx, Caller{ID: writer}, Target{wsID, esID, "AAAA-src"})
	if err != nil || l.Stream.ID != dsID || l.Source != "AAAA-src" {
		t.Fatalf("lane into the source: %+v, %v", l, err)
	}
	l, err = f.in.Open(ctx, Caller{ID: writer}, Target{wsID, esID, dsID})
	if err != nil || l.Stream.ID != dsID || l.Source != "" {
		t.Fatalf("lane into the stream: %+v, %v", l, err)
	}
	// A key caller: the grant names the Eventstream and node, and only a
	// source's key on the node's topic may send.
	g := Grant{KeyID: srcID + "/" + PrimaryKey, Eventstream: esID, Node: srcID, Topic: eventstream.DefaultTopic(esID, dsID)}
	if l, err = f.in.Open(ctx, Caller{Key: &g}, Target{}); err != nil || l.Source != srcID {
		t.Fatalf("lane of a key: %+v, %v", l, err)
	}
	g.Topic = "elsewhere"
	_, err = f.in.Open(ctx, Caller{Key: &g}, Target{})
	wantKind(t, err, Forbidden, wire.InsufficientPrivileges)
}
