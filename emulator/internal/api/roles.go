package api

import (
	"errors"
	"net/http"
	"slices"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/google/uuid"
)

// principalTypes are Fabric's principal types.
var principalTypes = []string{"User", "ServicePrincipal", "Group", "ServicePrincipalProfile"}

// principalJSON is whom a role is assigned to.
type principalJSON = wire.Principal

// roleAssignmentJSON is a role assignment as the routes answer it.
type roleAssignmentJSON = wire.RoleAssignment

func renderRole(ra store.RoleAssignment) roleAssignmentJSON {
	return roleAssignmentJSON{ID: ra.PrincipalID, Principal: principalJSON{ID: ra.PrincipalID, Type: ra.PrincipalType}, Role: ra.Role.String()}
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
func (a *API) canGrant(c *call, ws string, target store.Role) error {
	if target == store.RoleAdmin {
		return a.require(c, ws, store.RoleAdmin)
	}
	return a.require(c, ws, store.RoleMember)
}

func (a *API) addRole(c *call) error {
	ws, err := a.workspace(c, store.RoleMember)
	if err != nil {
		return err
	}
	var req struct {
		Principal principalJSON `json:"principal"`
		Role      string        `json:"role"`
	}
	if err := a.decode(c, &req); err != nil {
		return err
	}
	if _, err := uuid.Parse(req.Principal.ID); err != nil {
		return fabricerr.BadParameter("principal.id", "want a GUID, got %q", req.Principal.ID)
	}
	if !slices.Contains(principalTypes, req.Principal.Type) {
		return fabricerr.BadParameter("principal.type", "%q is not one of %v", req.Principal.Type, principalTypes)
	}
	role, err := parseRole(req.Role)
	if err != nil {
		return err
	}
	if err := a.canGrant(c, ws.ID, role); err != nil {
		return err
	}
	ra := store.RoleAssignment{WorkspaceID: ws.ID, PrincipalID: req.Principal.ID, PrincipalType: req.Principal.Type, Role: role}
	if err := a.cfg.Store.AddRole(c.r.Context(), ra); errors.Is(err, store.ErrConflict) {
		return fabricerr.New(http.StatusConflict, fabricerr.PrincipalAlreadyHasRole,
			"Principal %s already has a role in workspace %s; PATCH its role assignment instead", ra.PrincipalID, ws.ID)
	} else if err != nil {
		return err
	}
	c.location("workspaces", ws.ID, "roleAssignments", ra.PrincipalID)
	return c.JSON(http.StatusCreated, renderRole(ra))
}

func (a *API) listRoles(c *call) error {
	ws, err := a.workspace(c, store.RoleViewer)
	if err != nil {
		return err
	}
	p, err := a.page(c)
	if err != nil {
		return err
	}
	ras, next, err := a.cfg.Store.ListRoles(c.r.Context(), ws.ID, p)
	if err != nil {
		return err
	}
	out := make([]roleAssignmentJSON, len(ras))
	for i, ra := range ras {
		out[i] = renderRole(ra)
	}
	return list(c, out, next)
}

// assignment loads the {principal} assignment of a workspace the caller can see.
func (a *API) assignment(c *call, min store.Role) (store.RoleAssignment, error) {
	ws, err := a.workspace(c, min)
	if err != nil {
		return store.RoleAssignment{}, err
	}
	id := c.r.PathValue("principal")
	ra, err := a.cfg.Store.GetRole(c.r.Context(), ws.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		return ra, fabricerr.NotFound(fabricerr.PrincipalNotFound, "WorkspaceRoleAssignment", id)
	}
	return ra, err
}

func (a *API) getRole(c *call) error {
	ra, err := a.assignment(c, store.RoleViewer)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderRole(ra))
}

func (a *API) updateRole(c *call) error {
	ra, err := a.assignment(c, store.RoleMember)
	if err != nil {
		return err
	}
	var req struct {
		Role string `json:"role"`
	}
	if err := a.decode(c, &req); err != nil {
		return err
	}
	role, err := parseRole(req.Role)
	if err != nil {
		return err
	}
	if err := a.canGrant(c, ra.WorkspaceID, max(role, ra.Role)); err != nil {
		return err
	}
	if ra.Role == store.RoleAdmin && role != store.RoleAdmin {
		if err := a.keepAnAdmin(c, ra.WorkspaceID); err != nil {
			return err
		}
	}
	ra.Role = role
	if err := a.cfg.Store.UpdateRole(c.r.Context(), ra); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderRole(ra))
}

func (a *API) deleteRole(c *call) error {
	ra, err := a.assignment(c, store.RoleMember)
	if err != nil {
		return err
	}
	if err := a.canGrant(c, ra.WorkspaceID, ra.Role); err != nil {
		return err
	}
	if ra.Role == store.RoleAdmin {
		if err := a.keepAnAdmin(c, ra.WorkspaceID); err != nil {
			return err
		}
	}
	if err := a.cfg.Store.DeleteRole(c.r.Context(), ra.WorkspaceID, ra.PrincipalID); err != nil {
		return err
	}
	c.w.WriteHeader(http.StatusOK)
	return nil
}

// keepAnAdmin refuses to remove the workspace's last Admin.
func (a *API) keepAnAdmin(c *call, ws string) error {
	n, err := a.cfg.Store.CountAdmins(c.r.Context(), ws)
	if err != nil {
		return err
	}
	if n <= 1 {
		return fabricerr.New(http.StatusBadRequest, fabricerr.LastAdminCannotBeRemoved, "workspace %s must keep at least one Admin", ws)
	}
	return nil
}
