package api

import (
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// principalJSON is whom a role is assigned to.
type principalJSON = wire.Principal

// roleAssignmentJSON is a role assignment as the routes answer it.
type roleAssignmentJSON = wire.RoleAssignment

func renderRole(ra store.RoleAssignment) roleAssignmentJSON {
	return roleAssignmentJSON{ID: ra.PrincipalID, Principal: principalJSON{ID: ra.PrincipalID, Type: ra.PrincipalType}, Role: ra.Role.String()}
}

// roleRef is the call's {principal} assignment of its {ws}.
func roleRef(c *call) control.RoleRef {
	return control.RoleRef{WorkspaceID: c.r.PathValue("ws"), PrincipalID: c.r.PathValue("principal")}
}

func (a roleHandlers) addRole(c *call) error {
	if _, err := a.workspace(c, store.RoleMember); err != nil {
		return err // the caller's reach first, as every route answers
	}
	var req struct {
		Principal principalJSON `json:"principal"`
		Role      string        `json:"role"`
	}
	if err := a.decode(c, &req); err != nil {
		return err
	}
	ra, err := a.plane.AddRole(c.r.Context(), c.caller(), c.r.PathValue("ws"),
		control.RoleRequest{PrincipalID: req.Principal.ID, PrincipalType: req.Principal.Type, Role: req.Role})
	if err != nil {
		return err
	}
	c.location("workspaces", ra.WorkspaceID, "roleAssignments", ra.PrincipalID)
	return c.JSON(http.StatusCreated, renderRole(ra))
}

func (a roleHandlers) listRoles(c *call) error {
	if _, err := a.workspace(c, store.RoleViewer); err != nil {
		return err
	}
	p, err := a.page(c)
	if err != nil {
		return err
	}
	ras, next, err := a.plane.Roles(c.r.Context(), c.caller(), c.r.PathValue("ws"), p)
	if err != nil {
		return err
	}
	out := make([]roleAssignmentJSON, len(ras))
	for i, ra := range ras {
		out[i] = renderRole(ra)
	}
	return list(c, out, next)
}

func (a roleHandlers) getRole(c *call) error {
	ra, err := a.plane.RoleAssignment(c.r.Context(), c.caller(), roleRef(c), store.RoleViewer)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderRole(ra))
}

func (a roleHandlers) updateRole(c *call) error {
	if _, err := a.plane.RoleAssignment(c.r.Context(), c.caller(), roleRef(c), store.RoleMember); err != nil {
		return err // the caller's reach first, as every route answers
	}
	var req struct {
		Role string `json:"role"`
	}
	if err := a.decode(c, &req); err != nil {
		return err
	}
	ra, err := a.plane.UpdateRole(c.r.Context(), c.caller(), roleRef(c), req.Role)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderRole(ra))
}

func (a roleHandlers) deleteRole(c *call) error {
	return answerOK(c, a.plane.DeleteRole(c.r.Context(), c.caller(), roleRef(c)))
}
