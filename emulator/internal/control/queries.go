package control

import (
	"context"
	"errors"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// The reads behind the list routes: each checks who's role, then pages
// through the store.

// Workspaces lists the workspaces where who holds one of roles (any role
// when none is given).
func (p *Plane) Workspaces(ctx context.Context, who Caller, roles []store.Role, page store.Page) ([]store.Workspace, int64, error) {
	return p.cfg.Store.ListWorkspaces(ctx, who.ID, roles, page)
}

// Items lists the items of workspace ws of type typ ("" for every type);
// who must be a Viewer.
func (p *Plane) Items(ctx context.Context, who Caller, ws, typ string, page store.Page) ([]store.Item, int64, error) {
	w, err := p.Workspace(ctx, who, ws, store.RoleViewer)
	if err != nil {
		return nil, 0, err
	}
	return p.cfg.Store.ListItems(ctx, w.ID, typ, page)
}

// Roles lists the role assignments of workspace ws; who must be a Viewer.
func (p *Plane) Roles(ctx context.Context, who Caller, ws string, page store.Page) ([]store.RoleAssignment, int64, error) {
	w, err := p.Workspace(ctx, who, ws, store.RoleViewer)
	if err != nil {
		return nil, 0, err
	}
	return p.cfg.Store.ListRoles(ctx, w.ID, page)
}

// Jobs lists the job instances of item ref; who must be a Viewer.
func (p *Plane) Jobs(ctx context.Context, who Caller, ref ItemRef, page store.Page) ([]store.JobInstance, int64, error) {
	it, err := p.Item(ctx, who, ref, store.RoleViewer)
	if err != nil {
		return nil, 0, err
	}
	return p.cfg.Store.ListJobs(ctx, it.ID, page)
}

// Triggers lists the triggers of Reflex ref; who must be a Viewer.
func (p *Plane) Triggers(ctx context.Context, who Caller, ref ItemRef) ([]store.Trigger, error) {
	ref.Type = TypeReflex
	reflex, err := p.Item(ctx, who, ref, store.RoleViewer)
	if err != nil {
		return nil, err
	}
	return p.cfg.Store.ListTriggers(ctx, reflex.ID)
}

// ItemDefinition is the stored definition of item it (empty when it has
// none); the caller checked who may read it.
func (p *Plane) ItemDefinition(ctx context.Context, it store.Item) (store.Definition, error) {
	def, err := p.cfg.Store.GetDefinition(ctx, it.ID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return def, err
	}
	return def, nil
}
