package api

import (
	"errors"
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// workspace loads the workspace of the call's {ws} and checks that the caller
// holds at least role min there. An unknown or malformed id is 404
// WorkspaceNotFound; too weak a role (or none) is 403 InsufficientPrivileges.
func (a *API) workspace(c *call, min store.Role) (store.Workspace, error) {
	id := c.r.PathValue("ws")
	if _, err := uuid.Parse(id); err != nil {
		return store.Workspace{}, fabricerr.NotFound(fabricerr.WorkspaceNotFound, "Workspace", id)
	}
	return a.workspaceWithRole(c, id, min)
}

// workspaceWithRole loads workspace id (a GUID) and checks that the caller
// holds at least role min there.
func (a *API) workspaceWithRole(c *call, id string, min store.Role) (store.Workspace, error) {
	ws, err := a.cfg.Store.GetWorkspace(c.r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return ws, fabricerr.NotFound(fabricerr.WorkspaceNotFound, "Workspace", id)
	} else if err != nil {
		return ws, err
	}
	return ws, a.require(c, ws.ID, min)
}

// require checks the caller's role in a workspace.
func (a *API) require(c *call, workspaceID string, min store.Role) error {
	role, err := a.cfg.Store.RoleOf(c.r.Context(), workspaceID, c.principal)
	if err != nil {
		return err
	}
	if role >= min {
		return nil
	}
	if role == store.RoleNone {
		return fabricerr.New(http.StatusForbidden, fabricerr.InsufficientPrivileges,
			"The caller %s has no role in workspace %s", c.principal, workspaceID).WithResource(workspaceID, "Workspace")
	}
	return fabricerr.New(http.StatusForbidden, fabricerr.InsufficientPrivileges,
		"The caller's role %s in workspace %s is not enough: this operation needs %s or higher", role, workspaceID, min).
		WithResource(workspaceID, "Workspace")
}
