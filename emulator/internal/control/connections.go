package control

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// The emulator's registry of Kafka connections. In Fabric a Kafka-protocol
// source names a Fabric connection (dataConnectionId) made in the portal;
// no such connection exists locally, so it is registered here under the
// same id. A connection belongs to the workspace that registered it
// (workspaceId, required to register, fixed after): its Contributors and
// up replace and delete it, its Viewers read it, and only its
// Eventstreams' Kafka sources may name it (connections_access.go).

// ConnectionRequest is a registration of a Kafka connection: the workspace
// it belongs to ("" to keep the one it has) and its settings.
type ConnectionRequest struct {
	WorkspaceID string `json:"workspaceId"`
	runtime.KafkaConnection
}

// VisibleConnection is a registered connection and the caller's role in
// the workspace it belongs to (what the caller may see of it).
type VisibleConnection struct {
	store.DataConnection
	Role store.Role
}

// PutConnection registers (created) or replaces connection id; running
// sources that use it restart with the new settings.
func (p *Plane) PutConnection(ctx context.Context, who Caller, id string, req ConnectionRequest) (store.DataConnection, bool, error) {
	ws, err := p.connectionWorkspace(ctx, who, id, req.WorkspaceID)
	if err != nil {
		return store.DataConnection{}, false, err
	}
	k := req.KafkaConnection
	if err := CheckConnection(&k); err != nil {
		return store.DataConnection{}, false, err
	}
	spec, err := json.Marshal(k)
	if err != nil {
		return store.DataConnection{}, false, err
	}
	dc := store.DataConnection{ID: id, WorkspaceID: ws, Spec: spec, UpdatedAt: p.cfg.Now()}
	created, err := p.cfg.Store.PutDataConnection(ctx, dc)
	if errors.Is(err, store.ErrConflict) { // registered elsewhere meanwhile
		return dc, false, connectionElsewhere(id)
	} else if err != nil {
		return dc, false, err
	}
	p.rt.SyncConnection(id)
	return dc, created, nil
}

// Connection loads connection id and the caller's role in its workspace;
// without one, the connection does not exist for the caller.
func (p *Plane) Connection(ctx context.Context, who Caller, id string) (VisibleConnection, error) {
	dc, err := p.cfg.Store.GetDataConnection(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return VisibleConnection{}, fabricerr.NotFound(wire.ConnectionNotFound, "Connection", id)
	} else if err != nil {
		return VisibleConnection{}, err
	}
	role := store.RoleNone
	if dc.WorkspaceID != "" {
		if role, err = p.cfg.Store.RoleOf(ctx, dc.WorkspaceID, who.ID); err != nil {
			return VisibleConnection{}, err
		}
	}
	if role == store.RoleNone {
		return VisibleConnection{}, fabricerr.NotFound(wire.ConnectionNotFound, "Connection", id)
	}
	return VisibleConnection{dc, role}, nil
}

// Connections lists the connections of the workspaces where the caller
// has a role.
func (p *Plane) Connections(ctx context.Context, who Caller) ([]VisibleConnection, error) {
	wss, _, err := p.cfg.Store.ListWorkspaces(ctx, who.ID, nil, store.Page{})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(wss))
	for i, ws := range wss {
		ids[i] = ws.ID
	}
	cs, err := p.cfg.Store.ListDataConnections(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]VisibleConnection, len(cs))
	for i, dc := range cs {
		role, err := p.cfg.Store.RoleOf(ctx, dc.WorkspaceID, who.ID)
		if err != nil {
			return nil, err
		}
		out[i] = VisibleConnection{dc, role}
	}
	return out, nil
}

// DeleteConnection unregisters connection id; sources that use it fail
// until it is registered again.
func (p *Plane) DeleteConnection(ctx context.Context, who Caller, id string) error {
	v, err := p.Connection(ctx, who, id)
	if err != nil {
		return err
	}
	if err := manages(v.WorkspaceID, v.Role); err != nil {
		return err
	}
	if err := p.cfg.Store.DeleteDataConnection(ctx, v.WorkspaceID, id); errors.Is(err, store.ErrNotFound) {
		return fabricerr.NotFound(wire.ConnectionNotFound, "Connection", id)
	} else if err != nil {
		return err
	}
	p.rt.SyncConnection(id)
	return nil
}
