package control

import (
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

func TestQueriesCheckTheCaller(t *testing.T) {
	e := newEnv(t)
	items, _, err := e.plane.Items(e.ctx, e.viewer, e.ws, TypeLakehouse, store.Page{Limit: 10})
	if err != nil || len(items) != 1 || items[0].ID != e.lakehouse.ID {
		t.Fatalf("a viewer lists %+v, %v: want the Lakehouse", items, err)
	}
	stranger := Caller{ID: uuid.NewString()}
	_, _, err = e.plane.Items(e.ctx, stranger, e.ws, "", store.Page{Limit: 10})
	wantError(t, err, 403, fabricerr.InsufficientPrivileges)
	ras, _, err := e.plane.Roles(e.ctx, e.viewer, e.ws, store.Page{Limit: 10})
	if err != nil || len(ras) != 2 {
		t.Fatalf("roles %+v, %v: want the Admin and the Viewer", ras, err)
	}
	wss, _, err := e.plane.Workspaces(e.ctx, stranger, nil, store.Page{Limit: 10})
	if err != nil || len(wss) != 0 {
		t.Fatalf("a stranger sees %+v, %v", wss, err)
	}
	_, err = e.plane.Triggers(e.ctx, e.viewer, ItemRef{WorkspaceID: e.ws, ID: e.lakehouse.ID})
	wantError(t, err, 404, fabricerr.ItemNotFound)
}
