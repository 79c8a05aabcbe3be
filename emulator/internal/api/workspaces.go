package api

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/google/uuid"
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

// validWorkspaceName applies Fabric's rules: required, at most 256 characters,
// "Admin monitoring" reserved.
func validWorkspaceName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fabricerr.BadParameter("displayName", "is required")
	case utf8.RuneCountInString(name) > 256:
		return fabricerr.BadParameter("displayName", "is longer than 256 characters")
	case strings.EqualFold(strings.TrimSpace(name), "Admin monitoring"):
		return fabricerr.BadParameter("displayName", "%q is reserved", name)
	}
	return nil
}

func validWorkspaceDescription(d string) error {
	if utf8.RuneCountInString(d) > 4000 {
		return fabricerr.BadParameter("description", "is longer than 4000 characters")
	}
	return nil
}

func nameTaken(name string) error {
	return fabricerr.New(http.StatusConflict, fabricerr.WorkspaceNameAlreadyExists, "Workspace name %q is already in use", name)
}

func (a *API) createWorkspace(c *call) error {
	var req struct {
		DisplayName string `json:"displayName"`
		Description string `json:"description"`
		CapacityID  string `json:"capacityId"`
		DomainID    string `json:"domainId"`
	}
	if err := a.decode(c, &req); err != nil {
		return err
	}
	if err := errors.Join(validWorkspaceName(req.DisplayName), validWorkspaceDescription(req.Description)); err != nil {
		return firstErr(err)
	}
	if req.CapacityID != "" {
		if _, err := uuid.Parse(req.CapacityID); err != nil {
			return fabricerr.BadParameter("capacityId", "want a GUID, got %q", req.CapacityID)
		}
	}
	ws := store.Workspace{ID: uuid.NewString(), DisplayName: req.DisplayName, Description: req.Description, CapacityID: req.CapacityID, CreatedAt: a.cfg.Now()}
	err := a.cfg.Store.CreateWorkspace(c.r.Context(), ws, store.RoleAssignment{PrincipalID: c.principal, PrincipalType: c.principalType})
	if errors.Is(err, store.ErrConflict) {
		return nameTaken(req.DisplayName)
	} else if err != nil {
		return err
	}
	c.location("workspaces", ws.ID)
	return c.JSON(http.StatusCreated, renderWorkspace(ws, false))
}

func (a *API) listWorkspaces(c *call) error {
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
	wss, next, err := a.cfg.Store.ListWorkspaces(c.r.Context(), c.principal, roles, p)
	if err != nil {
		return err
	}
	out := make([]workspaceJSON, len(wss))
	for i, ws := range wss {
		out[i] = renderWorkspace(ws, false)
	}
	return list(c, out, next)
}

func (a *API) getWorkspace(c *call) error {
	ws, err := a.workspace(c, store.RoleViewer)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderWorkspace(ws, true))
}

func (a *API) updateWorkspace(c *call) error {
	ws, err := a.workspace(c, store.RoleAdmin)
	if err != nil {
		return err
	}
	var req struct {
		DisplayName *string `json:"displayName"`
		Description *string `json:"description"`
	}
	if err := a.decode(c, &req); err != nil {
		return err
	}
	if req.DisplayName != nil {
		if err := validWorkspaceName(*req.DisplayName); err != nil {
			return err
		}
		ws.DisplayName = *req.DisplayName
	}
	if req.Description != nil {
		if err := validWorkspaceDescription(*req.Description); err != nil {
			return err
		}
		ws.Description = *req.Description
	}
	if err := a.cfg.Store.UpdateWorkspace(c.r.Context(), ws); errors.Is(err, store.ErrConflict) {
		return nameTaken(ws.DisplayName)
	} else if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderWorkspace(ws, false))
}

func (a *API) deleteWorkspace(c *call) error {
	ws, err := a.workspace(c, store.RoleAdmin)
	if err != nil {
		return err
	}
	// Items go first so their Kafka topics are released.
	for {
		items, _, err := a.cfg.Store.ListItems(c.r.Context(), ws.ID, "", store.Page{Limit: 100})
		if err != nil {
			return err
		}
		if len(items) == 0 {
			break
		}
		for _, it := range items {
			if err := a.removeItem(c, it); err != nil {
				return err
			}
		}
	}
	if err := a.cfg.Store.DeleteWorkspace(c.r.Context(), ws.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	c.w.WriteHeader(http.StatusOK)
	return nil
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
func (a *API) listFolders(c *call) error {
	if _, err := a.workspace(c, store.RoleViewer); err != nil {
		return err
	}
	return list(c, []wire.Folder{}, 0)
}
