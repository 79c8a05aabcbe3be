package control

import (
	"context"
	"errors"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
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
func (p *Plane) connectionWorkspace(ctx context.Context, who Caller, id, named string) (string, error) {
	dc, err := p.cfg.Store.GetDataConnection(ctx, id)
	owned := err == nil && dc.WorkspaceID != ""
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	switch {
	case named != "":
		if _, err := uuid.Parse(named); err != nil {
			return "", fabricerr.BadParameter("workspaceId", "want a workspace id (a GUID), got %q", named)
		}
		ws, err := p.Workspace(ctx, who, named, store.RoleContributor)
		if err != nil {
			return "", err
		}
		if owned && dc.WorkspaceID != ws.ID {
			return "", connectionElsewhere(id)
		}
		return ws.ID, nil
	case owned:
		role, err := p.cfg.Store.RoleOf(ctx, dc.WorkspaceID, who.ID)
		if err != nil {
			return "", err
		}
		return dc.WorkspaceID, manages(dc.WorkspaceID, role)
	}
	return "", fabricerr.BadParameter("workspaceId",
		"required: the id of the workspace the connection belongs to (its Contributors manage it, its Eventstreams' Kafka sources use it)")
}

// manages refuses callers whose role in the connection's workspace ws is
// below Contributor; the message names no workspace to a caller without a
// role there.
func manages(ws string, role store.Role) error {
	if role >= store.RoleContributor {
		return nil
	}
	if role == store.RoleNone {
		return fabricerr.Denied(fabricerr.InsufficientPrivileges,
			"The caller has no role in the workspace the connection belongs to; only its Contributors, Members and Admins manage it")
	}
	return fabricerr.Denied(fabricerr.InsufficientPrivileges,
		"The caller's role %s in workspace %s is not enough: managing its connections needs Contributor or higher", role, ws).
		WithResource(ws, "Workspace")
}

// connectionElsewhere refuses to register id in another workspace than its own.
func connectionElsewhere(id string) error {
	return fabricerr.Conflict(wire.ConnectionInOtherWorkspace,
		"Connection %s is registered by another workspace and a connection cannot move; register the cluster under another id", id)
}
