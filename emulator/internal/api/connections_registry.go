package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/kafkaconfig"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// The emulator's registry of Kafka connections. In Fabric a Kafka-protocol
// source names a Fabric connection (dataConnectionId) made in the portal;
// no such connection exists locally, so it is registered here, under the
// same id, with the emulator-native routes
//
//	PUT    /v1/_emulator/connections/{connectionId}
//	GET    /v1/_emulator/connections/{connectionId}
//	GET    /v1/_emulator/connections
//	DELETE /v1/_emulator/connections/{connectionId}
//
// The body is {"workspaceId", "bootstrapServers": "host:port,…",
// "securityProtocol": "PLAINTEXT|SASL_PLAINTEXT|SSL|SASL_SSL",
// "saslMechanism": "PLAIN|SCRAM-SHA-256|SCRAM-SHA-512", "username",
// "password", "caCertificates", "clientCertificate", "clientKey"}: the last
// three are PEM standing in for the Key Vault certificates of a source's
// tlsSettings (sources_kafka_tls.go). Answers never carry the password or
// the client key.
//
// A connection belongs to the workspace that registered it (workspaceId,
// required to register, fixed after): its Contributors and up replace and
// delete it, its Viewers read it without the username, and only its
// Eventstreams' Kafka sources may name it (connections_access.go).

// ConnectionNotFound answers a connection id that is not registered, or
// that the caller has no role to see.
const ConnectionNotFound = "ConnectionNotFound"

// ConnectionInOtherWorkspace answers a registration naming another
// workspace than the one the connection belongs to.
const ConnectionInOtherWorkspace = "ConnectionInOtherWorkspace"

// kafkaConnection is a registered connection to a Kafka cluster.
type kafkaConnection = runtime.KafkaConnection

// connectionRequest is the body of a registration.
type connectionRequest struct {
	WorkspaceID string `json:"workspaceId"`
	kafkaConnection
}

// check validates k in place; field prefixes the field names of errors.
func checkConnection(k *kafkaConnection) error {
	if err := eventHubConnection(k); err != nil {
		return err
	}
	var seeds []string
	for _, h := range strings.Split(k.BootstrapServers, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if i := strings.LastIndex(h, ":"); i <= 0 || i == len(h)-1 {
			return fabricerr.BadParameter("bootstrapServers", "%q is not host:port", h)
		}
		seeds = append(seeds, h)
	}
	if len(seeds) == 0 {
		return fabricerr.BadParameter("bootstrapServers", "required: a comma-separated host:port list")
	}
	k.BootstrapServers = strings.Join(seeds, ",")
	if k.SecurityProtocol == "" {
		k.SecurityProtocol = "PLAINTEXT"
		if k.SASLMechanism != "" || k.Username != "" {
			k.SecurityProtocol = "SASL_PLAINTEXT"
		}
	}
	p, ok := control.OneOf(k.SecurityProtocol, control.SecurityProtocols)
	if !ok {
		return fabricerr.BadParameter("securityProtocol", "%q is not one of %s", k.SecurityProtocol, strings.Join(control.SecurityProtocols, ", "))
	}
	k.SecurityProtocol = p
	if err := checkConnectionTLS(k); err != nil {
		return err
	}
	if !strings.HasPrefix(p, "SASL_") {
		if k.SASLMechanism != "" || k.Username != "" || k.Password != "" {
			return fabricerr.BadParameter("securityProtocol", "%s takes no saslMechanism, username or password; use SASL_PLAINTEXT or SASL_SSL", p)
		}
		return nil
	}
	if k.SASLMechanism == "" {
		k.SASLMechanism = "PLAIN"
	}
	m, ok := control.OneOf(k.SASLMechanism, control.SASLMechanisms)
	if !ok {
		return fabricerr.BadParameter("saslMechanism", "%q is not one of %s", k.SASLMechanism, strings.Join(control.SASLMechanisms, ", "))
	}
	k.SASLMechanism = m
	if k.Username == "" || k.Password == "" {
		return fabricerr.BadParameter("username", "%s needs a username and a password", p)
	}
	return nil
}

// checkConnectionTLS checks the PEM a connection holds for its sources'
// tlsSettings: only under SSL and SASL_SSL, parsed as Kafka's PEM stores are.
func checkConnectionTLS(k *kafkaConnection) error {
	if k.CACertificates == "" && k.ClientCertificate == "" && k.ClientKey == "" {
		return nil
	}
	if !strings.HasSuffix(k.SecurityProtocol, "SSL") {
		return fabricerr.BadParameter("securityProtocol", "%s has no TLS for caCertificates, clientCertificate or clientKey; use SSL or SASL_SSL", k.SecurityProtocol)
	}
	p := kafkaconfig.Properties{"security.protocol": kafkaconfig.SSL}
	if k.CACertificates != "" {
		p["ssl.truststore.type"], p["ssl.truststore.certificates"] = "PEM", k.CACertificates
	}
	if k.ClientCertificate != "" || k.ClientKey != "" {
		p["ssl.keystore.type"] = "PEM"
		p["ssl.keystore.certificate.chain"], p["ssl.keystore.key"] = k.ClientCertificate, k.ClientKey
	}
	if _, err := kafkaconfig.Parse(p); err != nil {
		field := map[string]string{"ssl.truststore.certificates": "caCertificates", "ssl.keystore.certificate.chain": "clientCertificate", "ssl.keystore.key": "clientKey"}
		for key, name := range field {
			if strings.HasPrefix(err.Error(), "kafka config "+key+":") {
				return fabricerr.BadParameter(name, "%s", strings.TrimPrefix(err.Error(), "kafka config "+key+": "))
			}
		}
		return fabricerr.BadParameter("caCertificates", "%v", err)
	}
	return nil
}

// renderConnection is what callers with role see of c: never the
// password, and the username only to those who manage it.
func renderConnection(c store.DataConnection, role store.Role) map[string]any {
	var k kafkaConnection
	_ = json.Unmarshal(c.Spec, &k)
	out := map[string]any{"id": c.ID, "workspaceId": c.WorkspaceID, "bootstrapServers": k.BootstrapServers,
		"securityProtocol": k.SecurityProtocol, "updatedAt": c.UpdatedAt}
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
		if role >= store.RoleContributor {
			out["username"] = k.Username
		}
	}
	return out
}

func connectionID(c *call) (string, error) {
	id := strings.ToLower(strings.TrimSpace(c.r.PathValue("connectionId")))
	if id == "" || len(id) > 128 {
		return "", fabricerr.BadParameter("connectionId", "want the dataConnectionId the sources name (at most 128 characters)")
	}
	return id, nil
}

// putConnection serves PUT /v1/_emulator/connections/{connectionId}: 201
// when registered, 200 when replaced. Running sources that use it restart
// with the new settings.
func (a *API) putConnection(c *call) error {
	id, err := connectionID(c)
	if err != nil {
		return err
	}
	var req connectionRequest
	if err := a.decode(c, &req); err != nil {
		return err
	}
	ws, err := a.connectionWorkspace(c, id, req.WorkspaceID)
	if err != nil {
		return err
	}
	k := req.kafkaConnection
	a.ownEndpoint(&k)
	if err := checkConnection(&k); err != nil {
		return err
	}
	spec, _ := json.Marshal(k)
	dc := store.DataConnection{ID: id, WorkspaceID: ws, Spec: spec, UpdatedAt: a.cfg.Now()}
	created, err := a.cfg.Store.PutDataConnection(c.r.Context(), dc)
	if errors.Is(err, store.ErrConflict) { // registered elsewhere meanwhile
		return connectionElsewhere(id)
	} else if err != nil {
		return err
	}
	a.rt.SyncConnection(id)
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, renderConnection(dc, store.RoleContributor))
}

func (a *API) getDataConnection(c *call) error {
	id, err := connectionID(c)
	if err != nil {
		return err
	}
	dc, role, err := a.visibleConnection(c, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderConnection(dc, role))
}

// listDataConnections lists the connections of the workspaces where the
// caller has a role.
func (a *API) listDataConnections(c *call) error {
	wss, _, err := a.cfg.Store.ListWorkspaces(c.r.Context(), c.principal, nil, store.Page{})
	if err != nil {
		return err
	}
	ids := make([]string, len(wss))
	for i, ws := range wss {
		ids[i] = ws.ID
	}
	cs, err := a.cfg.Store.ListDataConnections(c.r.Context(), ids)
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(cs))
	for i, dc := range cs {
		role, err := a.cfg.Store.RoleOf(c.r.Context(), dc.WorkspaceID, c.principal)
		if err != nil {
			return err
		}
		out[i] = renderConnection(dc, role)
	}
	return list(c, out, 0)
}

// deleteConnection unregisters a connection; sources that use it fail
// until it is registered again.
func (a *API) deleteConnection(c *call) error {
	id, err := connectionID(c)
	if err != nil {
		return err
	}
	dc, role, err := a.visibleConnection(c, id)
	if err != nil {
		return err
	}
	if err := a.manages(c, dc.WorkspaceID, role); err != nil {
		return err
	}
	if err := a.cfg.Store.DeleteDataConnection(c.r.Context(), dc.WorkspaceID, id); errors.Is(err, store.ErrNotFound) {
		return fabricerr.NotFound(ConnectionNotFound, "Connection", id)
	} else if err != nil {
		return err
	}
	a.rt.SyncConnection(id)
	c.w.WriteHeader(http.StatusOK)
	return nil
}
