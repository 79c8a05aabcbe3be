package control

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/google/uuid"
)

// env is a control plane over a fresh store and an embedded broker: one
// workspace where admin is Admin and viewer a Viewer, with a Lakehouse and
// an Eventstream with its DefaultStream.
type env struct {
	t             *testing.T
	ctx           context.Context
	st            *store.Store
	plane         *Plane
	admin, viewer Caller
	ws            string
	lakehouse     store.Item
	es            store.Item

	mu      sync.Mutex
	changes []string // OnChange's calls
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(t.TempDir())
	must(t, err)
	t.Cleanup(func() { _ = st.Close() })
	b, err := broker.Embedded(broker.EmbeddedConfig{})
	must(t, err)
	t.Cleanup(b.Close)
	onelake := t.TempDir()
	rt := runtime.New(runtime.Config{Store: st, Broker: b, OneLakeDir: onelake})
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	e := &env{t: t, ctx: ctx, st: st, ws: uuid.NewString(),
		admin: Caller{ID: uuid.NewString()}, viewer: Caller{ID: uuid.NewString()}}
	e.plane = New(Config{Store: st, Broker: b, Runtime: rt, OneLakeDir: onelake, OnChange: func(id string) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.changes = append(e.changes, id)
	}})
	must(t, st.CreateWorkspace(ctx, store.Workspace{ID: e.ws, DisplayName: "w"},
		store.RoleAssignment{WorkspaceID: e.ws, PrincipalID: e.admin.ID, PrincipalType: "User", Role: store.RoleAdmin}))
	must(t, st.AddRole(ctx, store.RoleAssignment{WorkspaceID: e.ws, PrincipalID: e.viewer.ID, PrincipalType: "User", Role: store.RoleViewer}))
	e.lakehouse = store.Item{ID: uuid.NewString(), WorkspaceID: e.ws, Type: TypeLakehouse, DisplayName: "lh"}
	must(t, st.CreateItem(ctx, e.lakehouse))
	e.es = store.Item{ID: uuid.NewString(), WorkspaceID: e.ws, Type: TypeEventstream, DisplayName: "es"}
	must(t, st.CreateItem(ctx, e.es))
	streamID := uuid.NewString()
	m := eventstream.Model{Streams: []eventstream.Stream{{ID: streamID, Name: "es-stream",
		Type: eventstream.DefaultStreamType, Topic: eventstream.DefaultTopic(e.es.ID, streamID)}}}
	must(t, eventstream.Save(ctx, st, &e.es, m))
	return e
}

// ref names the env's Eventstream.
func (e *env) ref() ItemRef { return ItemRef{WorkspaceID: e.ws, ID: e.es.ID} }

// model is the Eventstream's stored model.
func (e *env) model() eventstream.Model {
	e.t.Helper()
	it, err := e.st.GetItem(e.ctx, e.es.ID)
	must(e.t, err)
	m, err := eventstream.Decode(it)
	must(e.t, err)
	return m
}

// changed reports how many times OnChange saw the Eventstream.
func (e *env) changed() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, id := range e.changes {
		if id == e.es.ID {
			n++
		}
	}
	return n
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantError checks that err is a Fabric error of code, answered with
// status (an HTTP status: the package imports no net/http, even in tests).
func wantError(t *testing.T, err error, status int, code wire.ErrorCode) *fabricerr.Error {
	t.Helper()
	var fe *fabricerr.Error
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want a %d %s", err, status, code)
	}
	if fe.Status != status || fe.ErrorCode != code {
		t.Fatalf("got %d %s (%s), want %d %s", fe.Status, fe.ErrorCode, fe.Message, status, code)
	}
	return fe
}
