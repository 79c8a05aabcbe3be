package fabrictest

import (
	"net/http"
	"net/url"
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

	handle
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
	return Reflex{ID: out.ID, WorkspaceID: out.WorkspaceID, Name: out.DisplayName, handle: handle{w.env}}, nil
}

// Item returns the Reflex as a generic item.
func (r Reflex) Item() Item {
	return Item{ID: r.ID, WorkspaceID: r.WorkspaceID, Type: "Reflex", Name: r.Name, handle: handle{r.env}}
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
