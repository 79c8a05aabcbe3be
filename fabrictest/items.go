package fabrictest

import (
	"context"
	"net/http"
	"net/url"
	"testing"
)

// ------------------------------------------------------------------ items

// Item is any Fabric item of a workspace, such as the Notebook or
// DataPipeline a Reflex trigger starts jobs of. Jobs of an item run through
// Fabric's Job Scheduler API; the emulator cannot run a notebook, so a Go
// handler registered with HandleJobs does the work.
type Item struct {
	// ID is the item id (a GUID).
	ID string
	// WorkspaceID is the workspace the item lives in.
	WorkspaceID string
	// Type is the item type, such as Notebook.
	Type string
	// Name is the display name.
	Name string

	env *Env
}

// Item creates an item of type typ (Notebook, DataPipeline, …) named name
// through the generic items route and fails the test if it cannot.
//
//	nb := ws.Item("Notebook", "on-order")
//	nb.HandleJobs("RunNotebook", func(ctx context.Context, j emulator.Job) error { … })
func (w Workspace) Item(typ, name string) Item {
	w.env.t.Helper()
	it, err := w.TryItem(typ, name)
	if err != nil {
		w.env.t.Fatalf("fabrictest: create %s %q in workspace %s: %v", typ, name, w.ID, err)
	}
	return it
}

// TryItem is Item that returns the error instead of failing the test.
func (w Workspace) TryItem(typ, name string) (Item, error) {
	var out itemJSON
	if _, err := w.env.do(http.MethodPost, w.path()+"/items", nil, map[string]any{"displayName": name, "type": typ}, 0, &out); err != nil {
		return Item{}, err
	}
	return Item{ID: out.ID, WorkspaceID: out.WorkspaceID, Type: out.Type, Name: out.DisplayName, env: w.env}, nil
}

// ItemRef returns a handle on the item id of the workspace without checking
// that it exists, such as one the code under test created.
func (w Workspace) ItemRef(id string) Item { return Item{ID: id, WorkspaceID: w.ID, env: w.env} }

// Item returns the Eventstream as a generic item.
func (es Eventstream) Item() Item {
	return Item{ID: es.ID, WorkspaceID: es.WorkspaceID, Type: "Eventstream", Name: es.Name, env: es.env}
}

// Env returns the environment view the item's helpers use.
func (it Item) Env() *Env { return it.env }

// As returns the handle acting as principal (see Env.As).
func (it Item) As(principal string) Item { it.env = it.env.As(principal); return it }

// WithT returns the handle reporting failures to t (see Env.WithT).
func (it Item) WithT(t testing.TB) Item { it.env = it.env.WithT(t); return it }

// WithContext returns the handle bounded by ctx (see Env.WithContext).
func (it Item) WithContext(ctx context.Context) Item { it.env = it.env.WithContext(ctx); return it }

func (it Item) jobsPath() string {
	return "/v1/workspaces/" + url.PathEscape(it.WorkspaceID) + "/items/" + url.PathEscape(it.ID) + "/jobs"
}
