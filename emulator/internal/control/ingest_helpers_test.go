package control

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// The fixture's names: a workspace whose contributor is writer and whose
// viewer is reader, holding Eventstream esID with a CustomEndpoint source
// (srcID), a CustomEndpoint destination (dstID) and the DefaultStream dsID.
const (
	wsID   = "0b7c3a52-5f0c-4a8e-9c61-3f2a9d3e1b10"
	esID   = "es-1"
	dsID   = "ds-1"
	srcID  = "aaaa-src"
	dstID  = "cccc-dst"
	writer = "writer"
	reader = "reader"
)

const fixtureTopology = `{
 "sources": [{"name": "app", "type": "CustomEndpoint", "id": "AAAA-src", "properties": {}}],
 "streams": [{"name": "es-stream", "type": "DefaultStream", "inputNodes": [{"name": "app"}]}],
 "destinations": [{"name": "out", "type": "CustomEndpoint", "id": "CCCC-dst", "inputNodes": [{"name": "es-stream"}]}]
}`

// fixture is a store holding the Eventstream, a runtime, and the seam over
// them with b as its broker.
type fixture struct {
	st *store.Store
	rt *runtime.Runtime
	in *Ingest
	it store.Item
}

func newFixture(t *testing.T, b *broker.Broker) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.CreateWorkspace(ctx, store.Workspace{ID: wsID, DisplayName: "ws", CreatedAt: time.Now()},
		store.RoleAssignment{WorkspaceID: wsID, PrincipalID: writer, PrincipalType: "User", Role: store.RoleContributor}); err != nil {
		t.Fatal(err)
	}
	if err := st.AddRole(ctx, store.RoleAssignment{WorkspaceID: wsID, PrincipalID: reader, PrincipalType: "User", Role: store.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	it := store.Item{ID: esID, WorkspaceID: wsID, Type: itemTypeEventstream, DisplayName: "es", CreatedAt: time.Now()}
	if err := st.CreateItem(ctx, it); err != nil {
		t.Fatal(err)
	}
	m := eventstream.Model{Streams: []eventstream.Stream{{ID: dsID, Name: "es-stream", Type: eventstream.DefaultStreamType, Topic: eventstream.DefaultTopic(esID, dsID)}}}
	if err := m.SetDefinition(definition.Parts{Topology: json.RawMessage(fixtureTopology)}); err != nil {
		t.Fatal(err)
	}
	if err := eventstream.Save(ctx, st, &it, m); err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(runtime.Config{Store: st, Broker: b})
	t.Cleanup(func() { rt.Close(context.Background()) })
	return &fixture{st: st, rt: rt, in: NewIngest(IngestConfig{Store: st, Broker: b, Runtime: rt}), it: it}
}

// update changes the stored Eventstream's model with f.
func (f *fixture) update(t *testing.T, change func(*eventstream.Model)) {
	t.Helper()
	it, err := f.st.GetItem(context.Background(), esID)
	if err != nil {
		t.Fatal(err)
	}
	m, err := eventstream.Decode(it)
	if err != nil {
		t.Fatal(err)
	}
	change(&m)
	if err := eventstream.Save(context.Background(), f.st, &it, m); err != nil {
		t.Fatal(err)
	}
}

// wantKind fails unless err is an *Error of kind k and code.
func wantKind(t *testing.T, err error, k Kind, code wire.ErrorCode) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want an *Error of kind %d", err, err, k)
	}
	if e.Kind != k || e.ErrorCode != code {
		t.Fatalf("error kind %d code %s (%v), want kind %d code %s", e.Kind, e.ErrorCode, e, k, code)
	}
	return e
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
