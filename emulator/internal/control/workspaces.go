package control

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// WorkspaceRequest is a workspace's creation.
type WorkspaceRequest struct {
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
	CapacityID  string `json:"capacityId"`
	DomainID    string `json:"domainId"`
}

// WorkspaceUpdate changes what it sets of a workspace.
type WorkspaceUpdate struct {
	DisplayName *string `json:"displayName"`
	Description *string `json:"description"`
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
	return fabricerr.Conflict(fabricerr.WorkspaceNameAlreadyExists, "Workspace name %q is already in use", name)
}

// CreateWorkspace creates a workspace whose Admin is who.
func (p *Plane) CreateWorkspace(ctx context.Context, who Caller, req WorkspaceRequest) (store.Workspace, error) {
	if err := validWorkspaceName(req.DisplayName); err != nil {
		return store.Workspace{}, err
	}
	if err := validWorkspaceDescription(req.Description); err != nil {
		return store.Workspace{}, err
	}
	if req.CapacityID != "" {
		if _, err := uuid.Parse(req.CapacityID); err != nil {
			return store.Workspace{}, fabricerr.BadParameter("capacityId", "want a GUID, got %q", req.CapacityID)
		}
	}
	ws := store.Workspace{ID: uuid.NewString(), DisplayName: req.DisplayName, Description: req.Description, CapacityID: req.CapacityID, CreatedAt: p.cfg.Now()}
	err := p.cfg.Store.CreateWorkspace(ctx, ws, store.RoleAssignment{PrincipalID: who.ID, PrincipalType: who.Type})
	if errors.Is(err, store.ErrConflict) {
		return ws, nameTaken(req.DisplayName)
	}
	return ws, err
}

// UpdateWorkspace renames or redescribes workspace id; who must be its Admin.
func (p *Plane) UpdateWorkspace(ctx context.Context, who Caller, id string, req WorkspaceUpdate) (store.Workspace, error) {
	ws, err := p.Workspace(ctx, who, id, store.RoleAdmin)
	if err != nil {
		return ws, err
	}
	if req.DisplayName != nil {
		if err := validWorkspaceName(*req.DisplayName); err != nil {
			return ws, err
		}
		ws.DisplayName = *req.DisplayName
	}
	if req.Description != nil {
		if err := validWorkspaceDescription(*req.Description); err != nil {
			return ws, err
		}
		ws.Description = *req.Description
	}
	if err := p.cfg.Store.UpdateWorkspace(ctx, ws); errors.Is(err, store.ErrConflict) {
		return ws, nameTaken(ws.DisplayName)
	} else if err != nil {
		return ws, err
	}
	return ws, nil
}

// DeleteWorkspace removes workspace id with its items (their topics, files
// and bindings first); who must be its Admin.
func (p *Plane) DeleteWorkspace(ctx context.Context, who Caller, id string) error {
	ws, err := p.Workspace(ctx, who, id, store.RoleAdmin)
	if err != nil {
		return err
	}
	for {
		items, _, err := p.cfg.Store.ListItems(ctx, ws.ID, "", store.Page{Limit: 100})
		if err != nil {
			return err
		}
		if len(items) == 0 {
			break
		}
		for _, it := range items {
			if err := p.RemoveItem(ctx, it); err != nil {
				return err
			}
		}
	}
	if err := p.cfg.Store.DeleteWorkspace(ctx, ws.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}
