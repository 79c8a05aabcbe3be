package api

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// The emulator's registry of Kafka connections, served by the
// emulator-native routes
//
//	PUT    /v1/_emulator/connections/{connectionId}
//	GET    /v1/_emulator/connections/{connectionId}
//	GET    /v1/_emulator/connections
//	DELETE /v1/_emulator/connections/{connectionId}
//
// The control plane validates, scopes and stores them
// (control.Plane.PutConnection); answers never carry the password or the
// client key.

// ConnectionNotFound answers a connection id that is not registered, or
// that the caller has no role to see.
const ConnectionNotFound = wire.ConnectionNotFound

// ConnectionInOtherWorkspace answers a registration naming another
// workspace than the one the connection belongs to.
const ConnectionInOtherWorkspace = wire.ConnectionInOtherWorkspace

// renderConnection is what the caller sees of v: never the password, and
// the username only to those who manage it.
func renderConnection(v control.VisibleConnection) map[string]any {
	var k runtime.KafkaConnection
	_ = json.Unmarshal(v.Spec, &k)
	if k.Server != "" { // a database connection (CDC sources)
		out := map[string]any{"id": v.ID, "workspaceId": v.WorkspaceID, "server": k.Server, "database": k.Database,
			"hasPassword": k.Password != "", "updatedAt": v.UpdatedAt}
		if v.Role >= store.RoleContributor {
			out["username"] = k.Username
		}
		return out
	}
	out := map[string]any{"id": v.ID, "workspaceId": v.WorkspaceID, "bootstrapServers": k.BootstrapServers,
		"securityProtocol": k.SecurityProtocol, "updatedAt": v.UpdatedAt}
	if k.EventHub != "" {
		out["eventHubName"] = k.EventHub
	}
	// Certificates are public; the client key is never answered.
	if k.CACertificates != "" {
		out["caCertificates"] = k.CACertificates
	}
	if k.ClientCertificate != "" {
		out["clientCertificate"], out["hasClientKey"] = k.ClientCertificate, k.ClientKey != ""
	}
	if k.SASLMechanism != "" {
		out["saslMechanism"], out["hasPassword"] = k.SASLMechanism, k.Password != ""
		if v.Role >= store.RoleContributor {
			out["username"] = k.Username
		}
	}
	return out
}

// registryHandlers serves the registry of Kafka connections.
type registryHandlers struct{ *API }

// connectionID reads the call's {connectionId}.
func connectionID(c *call) (string, error) {
	id := strings.ToLower(strings.TrimSpace(c.r.PathValue("connectionId")))
	if id == "" || len(id) > 128 {
		return "", fabricerr.BadParameter("connectionId", "want the dataConnectionId the sources name (at most 128 characters)")
	}
	return id, nil
}

// put serves PUT /v1/_emulator/connections/{connectionId}: 201
// when registered, 200 when replaced.
func (a registryHandlers) put(c *call) error {
	id, err := connectionID(c)
	if err != nil {
		return err
	}
	var req control.ConnectionRequest
	if err := a.decode(c, &req); err != nil {
		return err
	}
	a.ownEndpoint(&req.KafkaConnection)
	dc, created, err := a.plane.PutConnection(c.r.Context(), c.caller(), id, req)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, renderConnection(control.VisibleConnection{DataConnection: dc, Role: store.RoleContributor}))
}

// get serves GET /v1/_emulator/connections/{connectionId}.
func (a registryHandlers) get(c *call) error {
	id, err := connectionID(c)
	if err != nil {
		return err
	}
	v, err := a.plane.Connection(c.r.Context(), c.caller(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderConnection(v))
}

// list lists the connections of the workspaces where the
// caller has a role.
func (a registryHandlers) list(c *call) error {
	vs, err := a.plane.Connections(c.r.Context(), c.caller())
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(vs))
	for i, v := range vs {
		out[i] = renderConnection(v)
	}
	return list(c, out, 0)
}

// delete unregisters a connection.
func (a registryHandlers) delete(c *call) error {
	id, err := connectionID(c)
	if err != nil {
		return err
	}
	if err := a.plane.DeleteConnection(c.r.Context(), c.caller(), id); err != nil {
		return err
	}
	c.w.WriteHeader(http.StatusOK)
	return nil
}
