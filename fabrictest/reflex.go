package fabrictest

import (
	"context"
	"net/http"
	"net/url"
	"testing"
)

// ------------------------------------------------------------------ Reflex

// Reflex is a Fabric Activator (Reflex) item: its triggers start a job of an
// action item for every event an Eventstream delivers to it (BindReflex)
// that matches their condition.
type Reflex struct {
	// ID is the item id (a GUID).
	ID string
	// WorkspaceID is the workspace the item lives in.
	WorkspaceID string
	// Name is the display name.
	Name string

	env *Env
}

// Reflex creates a Reflex named name in the workspace and fails the test if
// it cannot.
//
//	rx := ws.Reflex("alerts")
//	rx.Trigger("every order", es, nb, "RunNotebook")
//	es.BindReflex(rx)
func (w Workspace) Reflex(name string) Reflex {
	w.env.t.Helper()
	r, err := w.TryReflex(name)
	if err != nil {
		w.env.t.Fatalf("fabrictest: create reflex %q in workspace %s: %v", name, w.ID, err)
	}
	return r
}

// TryReflex is Reflex that returns the error instead of failing the test.
func (w Workspace) TryReflex(name string) (Reflex, error) {
	var out itemJSON
	if _, err := w.env.do(http.MethodPost, w.path()+"/reflexes", nil, map[string]any{"displayName": name}, 0, &out); err != nil {
		return Reflex{}, err
	}
	return Reflex{ID: out.ID, WorkspaceID: out.WorkspaceID, Name: out.DisplayName, env: w.env}, nil
}

// Env returns the environment view the Reflex's helpers use.
func (r Reflex) Env() *Env { return r.env }

// As returns the handle acting as principal (see Env.As).
func (r Reflex) As(principal string) Reflex { r.env = r.env.As(principal); return r }

// WithT returns the handle reporting failures to t (see Env.WithT).
func (r Reflex) WithT(t testing.TB) Reflex { r.env = r.env.WithT(t); return r }

// WithContext returns the handle bounded by ctx (see Env.WithContext).
func (r Reflex) WithContext(ctx context.Context) Reflex { r.env = r.env.WithContext(ctx); return r }

// Item returns the Reflex as a generic item.
func (r Reflex) Item() Item {
	return Item{ID: r.ID, WorkspaceID: r.WorkspaceID, Type: "Reflex", Name: r.Name, env: r.env}
}

func (r Reflex) triggersPath() string {
	return "/v1/workspaces/" + url.PathEscape(r.WorkspaceID) + "/reflexes/" + url.PathEscape(r.ID) + "/triggers"
}

// BindReflex binds the Eventstream to the Reflex: each event (after the
// operators) fires the Reflex's enabled triggers whose source is this
// Eventstream and whose condition it meets. It fails the test unless the
// emulator answers 2xx. The produce answers once every job is started (not
// finished): wait for statuses with Eventually.
func (es Eventstream) BindReflex(r Reflex) Destination {
	es.env.t.Helper()
	d, err := es.TryBindReflex(r)
	if err != nil {
		es.env.t.Fatalf("fabrictest: bind eventstream %s to reflex %s: %v", es.ID, r.ID, err)
	}
	return d
}

// TryBindReflex is BindReflex that returns the error instead of failing the
// test.
func (es Eventstream) TryBindReflex(r Reflex) (Destination, error) {
	return es.bind(map[string]any{"type": "Reflex", "itemId": r.ID}, r.WorkspaceID)
}
