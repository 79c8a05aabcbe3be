package control

import (
	"errors"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

func TestWorkspaceLifecycle(t *testing.T) {
	e := newEnv(t)
	ws, err := e.plane.CreateWorkspace(e.ctx, e.viewer, WorkspaceRequest{DisplayName: "mine"})
	must(t, err)
	if role, err := e.st.RoleOf(e.ctx, ws.ID, e.viewer.ID); err != nil || role != store.RoleAdmin {
		t.Fatalf("the creator's role %v, %v: want Admin", role, err)
	}
	_, err = e.plane.CreateWorkspace(e.ctx, e.admin, WorkspaceRequest{DisplayName: "mine"})
	wantError(t, err, 409, fabricerr.WorkspaceNameAlreadyExists)
	_, err = e.plane.CreateWorkspace(e.ctx, e.admin, WorkspaceRequest{DisplayName: "admin monitoring"})
	wantError(t, err, 400, fabricerr.InvalidInput)
	name := "renamed"
	_, err = e.plane.UpdateWorkspace(e.ctx, e.admin, ws.ID, WorkspaceUpdate{DisplayName: &name})
	wantError(t, err, 403, fabricerr.InsufficientPrivileges)
	got, err := e.plane.UpdateWorkspace(e.ctx, e.viewer, ws.ID, WorkspaceUpdate{DisplayName: &name})
	if err != nil || got.DisplayName != name {
		t.Fatalf("rename: %+v, %v", got, err)
	}
	// Deleting the env's workspace takes its Eventstream and Lakehouse with it.
	must(t, e.plane.DeleteWorkspace(e.ctx, e.admin, e.ws))
	for _, id := range []string{e.es.ID, e.lakehouse.ID} {
		if _, err := e.st.GetItem(e.ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("item %s outlived its workspace: %v", id, err)
		}
	}
}

func TestRoles(t *testing.T) {
	e := newEnv(t)
	member := uuid.NewString()
	add := func(who Caller, id, role string) error {
		_, err := e.plane.AddRole(e.ctx, who, e.ws, RoleRequest{PrincipalID: id, PrincipalType: "User", Role: role})
		return err
	}
	must(t, add(e.admin, member, "Member"))
	wantError(t, add(e.admin, member, "Viewer"), 409, fabricerr.PrincipalAlreadyHasRole)
	wantError(t, add(Caller{ID: member}, uuid.NewString(), "Admin"), 403, fabricerr.InsufficientPrivileges)
	wantError(t, add(e.admin, "bob", "Viewer"), 400, fabricerr.InvalidInput)
	wantError(t, add(e.admin, uuid.NewString(), "Owner"), 400, fabricerr.InvalidInput)
	must(t, add(Caller{ID: member}, uuid.NewString(), "Contributor"))

	adminRef := RoleRef{WorkspaceID: e.ws, PrincipalID: e.admin.ID}
	_, err := e.plane.UpdateRole(e.ctx, e.admin, adminRef, "Member")
	wantError(t, err, 400, fabricerr.LastAdminCannotBeRemoved)
	wantError(t, e.plane.DeleteRole(e.ctx, e.admin, adminRef), 400, fabricerr.LastAdminCannotBeRemoved)
	wantError(t, e.plane.DeleteRole(e.ctx, Caller{ID: member}, adminRef), 403, fabricerr.InsufficientPrivileges)
	ra, err := e.plane.UpdateRole(e.ctx, e.admin, RoleRef{WorkspaceID: e.ws, PrincipalID: member}, "viewer")
	if err != nil || ra.Role != store.RoleViewer {
		t.Fatalf("demote: %+v, %v", ra, err)
	}
	_, err = e.plane.RoleAssignment(e.ctx, e.admin, RoleRef{WorkspaceID: e.ws, PrincipalID: uuid.NewString()}, store.RoleViewer)
	wantError(t, err, 404, fabricerr.PrincipalNotFound)
}
