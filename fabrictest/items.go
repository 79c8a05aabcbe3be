package fabrictest

import (
	"net/http"
	"net/url"
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

	handle
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
	return Item{ID: out.ID, WorkspaceID: out.WorkspaceID, Type: out.Type, Name: out.DisplayName, handle: handle{w.env}}, nil
}

// ItemRef returns a handle on the item id of the workspace without checking
// that it exists, such as one the code under test created.
func (w Workspace) ItemRef(id string) Item {
	return Item{ID: id, WorkspaceID: w.ID, handle: handle{w.env}}
}

// Item returns the Eventstream as a generic item.
func (es Eventstream) Item() Item {
	return Item{ID: es.ID, WorkspaceID: es.WorkspaceID, Type: "Eventstream", Name: es.Name, handle: handle{es.env}}
}

func (it Item) jobsPath() string {
	return "/v1/workspaces/" + url.PathEscape(it.WorkspaceID) + "/items/" + url.PathEscape(it.ID) + "/jobs"
}
