package control

import (
	"context"
	"errors"
	"slices"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// PrincipalTypes are Fabric's principal types.
var PrincipalTypes = []string{"User", "ServicePrincipal", "Group", "ServicePrincipalProfile"}

// RoleRequest grants Role (Admin, Member, Contributor or Viewer) to a
// principal of a type in PrincipalTypes.
type RoleRequest struct {
	PrincipalID, PrincipalType, Role string
}

// RoleRef names a principal's role assignment in a workspace.
type RoleRef struct {
	WorkspaceID, PrincipalID string
}

func parseRole(s string) (store.Role, error) {
	r, ok := store.ParseRole(s)
	if !ok {
		return r, fabricerr.BadParameter("role", "%q is not Admin, Member, Contributor or Viewer", s)
	}
	return r, nil
}

// canGrant: Admins manage every assignment; Members may manage assignments
// up to Member, and never an Admin's.
func (p *Plane) canGrant(ctx context.Context, who Caller, ws string, target store.Role) error {
	if target == store.RoleAdmin {
		return p.Require(ctx, who, ws, store.RoleAdmin)
	}
	return p.Require(ctx, who, ws, store.RoleMember)
}

// AddRole grants req in workspace ws.
func (p *Plane) AddRole(ctx context.Context, who Caller, ws string, req RoleRequest) (store.RoleAssignment, error) {
	w, err := p.Workspace(ctx, who, ws, store.RoleMember)
	if err != nil {
		return store.RoleAssignment{}, err
	}
	if _, err := uuid.Parse(req.PrincipalID); err != nil {
		return store.RoleAssignment{}, fabricerr.BadParameter("principal.id", "want a GUID, got %q", req.PrincipalID)
	}
	if !slices.Contains(PrincipalTypes, req.PrincipalType) {
		return store.RoleAssignment{}, fabricerr.BadParameter("principal.type", "%q is not one of %v", req.PrincipalType, PrincipalTypes)
	}
	role, err := parseRole(req.Role)
	if err != nil {
		return store.RoleAssignment{}, err
	}
	if err := p.canGrant(ctx, who, w.ID, role); err != nil {
		return store.RoleAssignment{}, err
	}
	ra := store.RoleAssignment{WorkspaceID: w.ID, PrincipalID: req.PrincipalID, PrincipalType: req.PrincipalType, Role: role}
	if err := p.cfg.Store.AddRole(ctx, ra); errors.Is(err, store.ErrConflict) {
		return ra, fabricerr.Conflict(fabricerr.PrincipalAlreadyHasRole,
			"Principal %s already has a role in workspace %s; PATCH its role assignment instead", ra.PrincipalID, w.ID)
	} else if err != nil {
		return ra, err
	}
	return ra, nil
}

// RoleAssignment loads assignment ref of a workspace where who holds at
// least min.
func (p *Plane) RoleAssignment(ctx context.Context, who Caller, ref RoleRef, min store.Role) (store.RoleAssignment, error) {
	ws, err := p.Workspace(ctx, who, ref.WorkspaceID, min)
	if err != nil {
		return store.RoleAssignment{}, err
	}
	ra, err := p.cfg.Store.GetRole(ctx, ws.ID, ref.PrincipalID)
	if errors.Is(err, store.ErrNotFound) {
		return ra, fabricerr.NotFound(fabricerr.PrincipalNotFound, "WorkspaceRoleAssignment", ref.PrincipalID)
	}
	return ra, err
}

// UpdateRole changes assignment ref's role to role.
func (p *Plane) UpdateRole(ctx context.Context, who Caller, ref RoleRef, role string) (store.RoleAssignment, error) {
	ra, err := p.RoleAssignment(ctx, who, ref, store.RoleMember)
	if err != nil {
		return ra, err
	}
	r, err := parseRole(role)
	if err != nil {
		return ra, err
	}
	if err := p.canGrant(ctx, who, ra.WorkspaceID, max(r, ra.Role)); err != nil {
		return ra, err
	}
	if ra.Role == store.RoleAdmin && r != store.RoleAdmin {
		if err := p.keepAnAdmin(ctx, ra.WorkspaceID); err != nil {
			return ra, err
		}
	}
	ra.Role = r
	return ra, p.cfg.Store.UpdateRole(ctx, ra)
}

// DeleteRole removes assignment ref.
func (p *Plane) DeleteRole(ctx context.Context, who Caller, ref RoleRef) error {
	ra, err := p.RoleAssignment(ctx, who, ref, store.RoleMember)
	if err != nil {
		return err
	}
	if err := p.canGrant(ctx, who, ra.WorkspaceID, ra.Role); err != nil {
		return err
	}
	if ra.Role == store.RoleAdmin {
		if err := p.keepAnAdmin(ctx, ra.WorkspaceID); err != nil {
			return err
		}
	}
	return p.cfg.Store.DeleteRole(ctx, ra.WorkspaceID, ra.PrincipalID)
}

// keepAnAdmin refuses to remove the workspace's last Admin.
func (p *Plane) keepAnAdmin(ctx context.Context, ws string) error {
	n, err := p.cfg.Store.CountAdmins(ctx, ws)
	if err != nil {
		return err
	}
	if n <= 1 {
		return fabricerr.Invalid(fabricerr.LastAdminCannotBeRemoved, "workspace %s must keep at least one Admin", ws)
	}
	return nil
}
