package api

import (
	"errors"
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// Who may do what with a registered Kafka connection. Fabric's own
// connections (/v1/connections) have roles of their own (Owner,
// UserWithReshare, User) and never answer credentials; the emulator has no
// such roles, so a connection takes those of the workspace that registered
// it, the way an item does:
//
//   - Contributors, Members and Admins there register, replace and delete it;
//   - Viewers read it, without the username (and nobody reads the password):
//     they see the topology that names it, but could not use it to log in;
//   - anyone else is told it does not exist (404 ConnectionNotFound, as
//     Fabric answers EntityNotFound for a connection the caller has no
//     permission on), except a registration, which must refuse with 403:
//     the id is taken.
//
// Connections of a database older than this rule belong to no workspace:
// nobody sees them, and the first registration that names a workspace
// claims them (a Kafka source can only use a connection of its own
// workspace, so claiming one cannot redirect another workspace's sources).

// connectionWorkspace authorises a registration of connection id naming
// workspace named ("" to keep the connection's) and returns the workspace
// the connection belongs to.
func (a *API) connectionWorkspace(c *call, id, named string) (string, error) {
	dc, err := a.cfg.Store.GetDataConnection(c.r.Context(), id)
	owned := err == nil && dc.WorkspaceID != ""
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	switch {
	case named != "":
		ws, err := a.workspaceByID(c, named, store.RoleContributor)
		if err != nil {
			return "", err
		}
		if owned && dc.WorkspaceID != ws.ID {
			return "", connectionElsewhere(id)
		}
		return ws.ID, nil
	case owned:
		role, err := a.cfg.Store.RoleOf(c.r.Context(), dc.WorkspaceID, c.principal)
		if err != nil {
			return "", err
		}
		return dc.WorkspaceID, a.manages(c, dc.WorkspaceID, role)
	}
	return "", fabricerr.BadParameter("workspaceId",
		"required: the id of the workspace the connection belongs to (its Contributors manage it, its Eventstreams' Kafka sources use it)")
}

// workspaceByID loads workspace id and checks the caller's role there, as
// workspace does for a {ws} in the path.
func (a *API) workspaceByID(c *call, id string, min store.Role) (store.Workspace, error) {
	if _, err := uuid.Parse(id); err != nil {
		return store.Workspace{}, fabricerr.BadParameter("workspaceId", "want a workspace id (a GUID), got %q", id)
	}
	return a.workspaceWithRole(c, id, min)
}

// visibleConnection loads connection id and the caller's role in its
// workspace; without one, the connection does not exist for the caller.
func (a *API) visibleConnection(c *call, id string) (store.DataConnection, store.Role, error) {
	dc, err := a.cfg.Store.GetDataConnection(c.r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return dc, store.RoleNone, fabricerr.NotFound(ConnectionNotFound, "Connection", id)
	} else if err != nil {
		return dc, store.RoleNone, err
	}
	role := store.RoleNone
	if dc.WorkspaceID != "" {
		if role, err = a.cfg.Store.RoleOf(c.r.Context(), dc.WorkspaceID, c.principal); err != nil {
			return dc, role, err
		}
	}
	if role == store.RoleNone {
		return dc, role, fabricerr.NotFound(ConnectionNotFound, "Connection", id)
	}
	return dc, role, nil
}

// manages refuses callers whose role in the connection's workspace ws is
// below Contributor; the message names no workspace to a caller without a
// role there.
func (a *API) manages(c *call, ws string, role store.Role) error {
	if role >= store.RoleContributor {
		return nil
	}
	if role == store.RoleNone {
		return fabricerr.New(http.StatusForbidden, fabricerr.InsufficientPrivileges,
			"The caller has no role in the workspace the connection belongs to; only its Contributors, Members and Admins manage it")
	}
	return fabricerr.New(http.StatusForbidden, fabricerr.InsufficientPrivileges,
		"The caller's role %s in workspace %s is not enough: managing its connections needs Contributor or higher", role, ws).
		WithResource(ws, "Workspace")
}

// connectionElsewhere refuses to register id in another workspace than its own.
func connectionElsewhere(id string) error {
	return fabricerr.New(http.StatusConflict, ConnectionInOtherWorkspace,
		"Connection %s is registered by another workspace and a connection cannot move; register the cluster under another id", id)
}
