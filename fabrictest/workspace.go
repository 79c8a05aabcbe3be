package fabrictest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// Role is a workspace role.
type Role string

// Fabric's workspace roles, from most to least privileged. Viewers read,
// resolve and consume; Contributors and up create items and produce;
// Members manage role assignments up to Member; Admins manage everything.
const (
	Admin       Role = "Admin"
	Member      Role = "Member"
	Contributor Role = "Contributor"
	Viewer      Role = "Viewer"
)

// Workspace is a Fabric workspace in the environment. Its helpers act as
// the principal of the Env it came from (see As).
type Workspace struct {
	// ID is the workspace id (a GUID).
	ID string
	// Name is the display name.
	Name string

	handle
}

// Workspace creates a workspace named name, with the environment's
// principal as its Admin, and fails the test if it cannot.
func (e *Env) Workspace(name string) Workspace {
	e.t.Helper()
	ws, err := e.TryWorkspace(name)
	if err != nil {
		e.t.Fatalf("fabrictest: create workspace %q: %v", name, err)
	}
	return ws
}

// TryWorkspace is Workspace that returns the error (an *APIError for a
// refused call) instead of failing the test.
func (e *Env) TryWorkspace(name string) (Workspace, error) {
	var out wire.Workspace
	if _, err := e.do(http.MethodPost, "/v1/workspaces", nil, map[string]any{"displayName": name}, 0, &out); err != nil {
		return Workspace{}, err
	}
	return Workspace{ID: out.ID, Name: out.DisplayName, handle: handle{e}}, nil
}

// WorkspaceRef returns a reference to the workspace id, such as one the
// code under test created, without calling the API: nothing is checked
// until it is used.
func (e *Env) WorkspaceRef(id string) Workspace { return Workspace{ID: id, handle: handle{e}} }

// path is the workspace's REST path.
func (w Workspace) path() string { return "/v1/workspaces/" + url.PathEscape(w.ID) }

// Grant gives principal (a GUID or a name, see PrincipalID) role in the
// workspace, as a User, and fails the test if it cannot.
func (w Workspace) Grant(principal string, role Role) {
	w.env.t.Helper()
	if err := w.TryGrant(principal, role); err != nil {
		w.env.t.Fatalf("fabrictest: grant %s to %q in workspace %s: %v", role, principal, w.ID, err)
	}
}

// TryGrant is Grant that returns the error instead of failing the test.
func (w Workspace) TryGrant(principal string, role Role) error {
	body := map[string]any{"principal": map[string]any{"id": PrincipalID(principal), "type": "User"}, "role": string(role)}
	_, err := w.env.do(http.MethodPost, w.path()+"/roleAssignments", nil, body, 0, nil)
	return err
}

// Eventstream creates an Eventstream named name in the workspace (with its
// DefaultStream and Kafka topic) and fails the test if it cannot.
func (w Workspace) Eventstream(name string) Eventstream {
	w.env.t.Helper()
	es, err := w.TryEventstream(name)
	if err != nil {
		w.env.t.Fatalf("fabrictest: create eventstream %q in workspace %s: %v", name, w.ID, err)
	}
	return es
}

// TryEventstream is Eventstream that returns the error instead of failing
// the test. On a real broker it returns once the Eventstream's topic serves
// offsets, so a consume right after it cannot find the topic missing.
func (w Workspace) TryEventstream(name string) (Eventstream, error) {
	return w.createEventstream(map[string]any{"displayName": name})
}

// createEventstream creates an Eventstream from body and waits until its
// topic serves offsets.
func (w Workspace) createEventstream(body map[string]any) (Eventstream, error) {
	var out eventstreamJSON
	if _, err := w.env.do(http.MethodPost, w.path()+"/eventstreams", nil, body, 0, &out); err != nil {
		return Eventstream{}, err
	}
	es, err := out.handle(w.env)
	if err != nil {
		return es, err
	}
	ctx, cancel := context.WithTimeout(w.env.ctx, w.env.c.cfg.callTimeout)
	defer cancel()
	if err := w.env.c.awaitTopic(ctx, es.Topic); err != nil {
		return es, fmt.Errorf("eventstream %s created, but %w", es.ID, err)
	}
	return es, nil
}

// eventstreamJSON is the Eventstream item as the API renders it.
type eventstreamJSON struct {
	itemJSON
	Properties struct {
		Streams []struct {
			ID    string `json:"id"`
			Topic string `json:"topic"`
		} `json:"streams"`
	} `json:"properties"`
}

func (j eventstreamJSON) handle(e *Env) (Eventstream, error) {
	if len(j.Properties.Streams) == 0 {
		return Eventstream{}, fmt.Errorf("eventstream %s has no streams in its properties", j.ID)
	}
	s := j.Properties.Streams[0]
	return Eventstream{ID: j.ID, WorkspaceID: j.WorkspaceID, Name: j.DisplayName, DatasourceID: s.ID, Topic: s.Topic, handle: handle{e}}, nil
}

// EventstreamByID looks up the Eventstream id of the workspace, such as one
// the code under test created, reading its datasource id and topic from the
// API, and fails the test if it cannot.
func (w Workspace) EventstreamByID(id string) Eventstream {
	w.env.t.Helper()
	es, err := w.TryEventstreamByID(id)
	if err != nil {
		w.env.t.Fatalf("fabrictest: get eventstream %s in workspace %s: %v", id, w.ID, err)
	}
	return es
}

// TryEventstreamByID is EventstreamByID that returns the error (404
// ItemNotFound for an unknown id) instead of failing the test.
func (w Workspace) TryEventstreamByID(id string) (Eventstream, error) {
	var out eventstreamJSON
	if _, err := w.env.do(http.MethodGet, w.path()+"/eventstreams/"+url.PathEscape(id), nil, nil, 0, &out); err != nil {
		return Eventstream{}, err
	}
	return out.handle(w.env)
}

// EventstreamRef returns a reference to the Eventstream itemID of the
// workspace, whose DefaultStream is datasourceID, without calling the API:
// for Eventstreams created elsewhere, and for tests of what a wrong id
// answers.
//
//	bad := ws.EventstreamRef("00000000-0000-0000-0000-00000000dead", es.DatasourceID)
//	_, err := bad.TryResolve() // 404 ItemNotFound
func (w Workspace) EventstreamRef(itemID, datasourceID string) Eventstream {
	return Eventstream{ID: itemID, WorkspaceID: w.ID, DatasourceID: datasourceID,
		Topic: itemID + "." + datasourceID, handle: w.handle}
}
