package control

import (
	"context"
	"errors"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// ItemRef names an item as a route does: its workspace, its id and, on
// typed routes, the type it must have ("" for any).
type ItemRef struct {
	WorkspaceID, ID, Type string
}

// Workspace loads workspace id and checks that who holds at least role
// min there. An unknown or malformed id is 404 WorkspaceNotFound; too weak
// a role (or none) is 403 InsufficientPrivileges.
func (p *Plane) Workspace(ctx context.Context, who Caller, id string, min store.Role) (store.Workspace, error) {
	if _, err := uuid.Parse(id); err != nil {
		return store.Workspace{}, fabricerr.NotFound(fabricerr.WorkspaceNotFound, "Workspace", id)
	}
	ws, err := p.cfg.Store.GetWorkspace(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return ws, fabricerr.NotFound(fabricerr.WorkspaceNotFound, "Workspace", id)
	} else if err != nil {
		return ws, err
	}
	return ws, p.Require(ctx, who, ws.ID, min)
}

// Require checks who's role in a workspace.
func (p *Plane) Require(ctx context.Context, who Caller, workspaceID string, min store.Role) error {
	role, err := p.cfg.Store.RoleOf(ctx, workspaceID, who.ID)
	if err != nil {
		return err
	}
	if role >= min {
		return nil
	}
	if role == store.RoleNone {
		return fabricerr.Denied(fabricerr.InsufficientPrivileges,
			"The caller %s has no role in workspace %s", who.ID, workspaceID).WithResource(workspaceID, "Workspace")
	}
	return fabricerr.Denied(fabricerr.InsufficientPrivileges,
		"The caller's role %s in workspace %s is not enough: this operation needs %s or higher", role, workspaceID, min).
		WithResource(workspaceID, "Workspace")
}

// Item loads item ref, checking who's role in its workspace and, when
// ref.Type is set, the item's type.
func (p *Plane) Item(ctx context.Context, who Caller, ref ItemRef, min store.Role) (store.Item, error) {
	ws, err := p.Workspace(ctx, who, ref.WorkspaceID, min)
	if err != nil {
		return store.Item{}, err
	}
	it, err := p.cfg.Store.GetItem(ctx, ref.ID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && it.WorkspaceID != ws.ID) || (err == nil && ref.Type != "" && it.Type != ref.Type) {
		return it, fabricerr.NotFound(fabricerr.ItemNotFound, "Item", ref.ID)
	}
	return it, err
}

// eventstream loads Eventstream ref (its Type is set here).
func (p *Plane) eventstream(ctx context.Context, who Caller, ref ItemRef, min store.Role) (store.Item, error) {
	ref.Type = TypeEventstream
	return p.Item(ctx, who, ref, min)
}
