package api

import (
	"net/http"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// workspaceJSON is Fabric's Workspace / WorkspaceInfo.
// workspaceJSON is a workspace as the routes answer it.
type workspaceJSON = wire.Workspace

func renderWorkspace(ws store.Workspace, info bool) workspaceJSON {
	j := workspaceJSON{ID: ws.ID, DisplayName: ws.DisplayName, Description: ws.Description, Type: "Workspace", CapacityID: ws.CapacityID}
	if info {
		j.CapacityAssignmentProgress = "Completed"
	}
	return j
}

func (a workspaceHandlers) createWorkspace(c *call) error {
	var req control.WorkspaceRequest
	if err := a.decode(c, &req); err != nil {
		return err
	}
	ws, err := a.plane.CreateWorkspace(c.r.Context(), c.caller(), req)
	if err != nil {
		return err
	}
	c.location("workspaces", ws.ID)
	return c.JSON(http.StatusCreated, renderWorkspace(ws, false))
}

func (a workspaceHandlers) listWorkspaces(c *call) error {
	var roles []store.Role
	if s := c.r.URL.Query().Get("roles"); s != "" {
		for _, name := range strings.Split(s, ",") {
			r, ok := store.ParseRole(strings.TrimSpace(name))
			if !ok {
				return fabricerr.New(http.StatusBadRequest, fabricerr.InvalidParameter, "roles: %q is not Admin, Member, Contributor or Viewer", name)
			}
			roles = append(roles, r)
		}
	}
	p, err := a.page(c)
	if err != nil {
		return err
	}
	wss, next, err := a.plane.Workspaces(c.r.Context(), c.caller(), roles, p)
	if err != nil {
		return err
	}
	out := make([]workspaceJSON, len(wss))
	for i, ws := range wss {
		out[i] = renderWorkspace(ws, false)
	}
	return list(c, out, next)
}

func (a workspaceHandlers) getWorkspace(c *call) error {
	ws, err := a.workspace(c, store.RoleViewer)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderWorkspace(ws, true))
}

func (a workspaceHandlers) updateWorkspace(c *call) error {
	if _, err := a.workspace(c, store.RoleAdmin); err != nil {
		return err // the caller's reach first, as every route answers
	}
	var req control.WorkspaceUpdate
	if err := a.decode(c, &req); err != nil {
		return err
	}
	ws, err := a.plane.UpdateWorkspace(c.r.Context(), c.caller(), c.r.PathValue("ws"), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderWorkspace(ws, false))
}

// deleteWorkspace removes the workspace; its items go first so their
// Kafka topics are released.
func (a workspaceHandlers) deleteWorkspace(c *call) error {
	return answerOK(c, a.plane.DeleteWorkspace(c.r.Context(), c.caller(), c.r.PathValue("ws")))
}

// firstErr unwraps an errors.Join to its first error, so one envelope names one problem.
func firstErr(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()[0]
	}
	return err
}

// listFolders serves GET /v1/workspaces/{ws}/folders. The emulator keeps
// no folders (every item is at the workspace's root), so the list is
// empty; deployment tools such as fabric-cicd read it before publishing.
func (a workspaceHandlers) listFolders(c *call) error {
	if _, err := a.workspace(c, store.RoleViewer); err != nil {
		return err
	}
	return list(c, []wire.Folder{}, 0)
}
