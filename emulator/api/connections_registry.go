package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/store"
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
// The body is {"bootstrapServers": "host:port,…", "securityProtocol":
// "PLAINTEXT|SASL_PLAINTEXT|SSL|SASL_SSL", "saslMechanism":
// "PLAIN|SCRAM-SHA-256|SCRAM-SHA-512", "username", "password"}. Answers
// never carry the password.

// ConnectionNotFound answers a connection id that is not registered.
const ConnectionNotFound = "ConnectionNotFound"

// kafkaConnection is a registered connection to a Kafka cluster.
type kafkaConnection struct {
	BootstrapServers string `json:"bootstrapServers"`
	SecurityProtocol string `json:"securityProtocol,omitempty"`
	SASLMechanism    string `json:"saslMechanism,omitempty"`
	Username         string `json:"username,omitempty"`
	Password         string `json:"password,omitempty"`
}

var (
	securityProtocols = []string{"PLAINTEXT", "SASL_PLAINTEXT", "SSL", "SASL_SSL"}
	saslMechanisms    = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}
)

// oneOf returns the canonical spelling of v in allowed (case-insensitive).
func oneOf(v string, allowed []string) (string, bool) {
	for _, a := range allowed {
		if strings.EqualFold(a, strings.TrimSpace(v)) {
			return a, true
		}
	}
	return "", false
}

// check validates k in place; field prefixes the field names of errors.
func (k *kafkaConnection) check() error {
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
	p, ok := oneOf(k.SecurityProtocol, securityProtocols)
	if !ok {
		return fabricerr.BadParameter("securityProtocol", "%q is not one of %s", k.SecurityProtocol, strings.Join(securityProtocols, ", "))
	}
	k.SecurityProtocol = p
	if !strings.HasPrefix(p, "SASL_") {
		if k.SASLMechanism != "" || k.Username != "" || k.Password != "" {
			return fabricerr.BadParameter("securityProtocol", "%s takes no saslMechanism, username or password; use SASL_PLAINTEXT or SASL_SSL", p)
		}
		return nil
	}
	if k.SASLMechanism == "" {
		k.SASLMechanism = "PLAIN"
	}
	m, ok := oneOf(k.SASLMechanism, saslMechanisms)
	if !ok {
		return fabricerr.BadParameter("saslMechanism", "%q is not one of %s", k.SASLMechanism, strings.Join(saslMechanisms, ", "))
	}
	k.SASLMechanism = m
	if k.Username == "" || k.Password == "" {
		return fabricerr.BadParameter("username", "%s needs a username and a password", p)
	}
	return nil
}

func renderConnection(c store.DataConnection) map[string]any {
	var k kafkaConnection
	_ = json.Unmarshal(c.Spec, &k)
	out := map[string]any{"id": c.ID, "bootstrapServers": k.BootstrapServers, "securityProtocol": k.SecurityProtocol, "updatedAt": c.UpdatedAt}
	if k.SASLMechanism != "" {
		out["saslMechanism"], out["username"], out["hasPassword"] = k.SASLMechanism, k.Username, k.Password != ""
	}
	return out
}

// dataConnection loads the registered connection id.
func (a *API) dataConnection(ctx context.Context, id string) (kafkaConnection, error) {
	var k kafkaConnection
	c, err := a.cfg.Store.GetDataConnection(ctx, strings.ToLower(id))
	if err != nil {
		return k, err
	}
	if err := json.Unmarshal(c.Spec, &k); err != nil {
		return k, err
	}
	return k, nil
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
	var k kafkaConnection
	if err := a.decode(c, &k); err != nil {
		return err
	}
	if err := k.check(); err != nil {
		return err
	}
	spec, _ := json.Marshal(k)
	dc := store.DataConnection{ID: id, Spec: spec, UpdatedAt: a.cfg.Now()}
	created, err := a.cfg.Store.PutDataConnection(c.r.Context(), dc)
	if err != nil {
		return err
	}
	a.syncSourcesUsing(id)
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, renderConnection(dc))
}

func (a *API) getDataConnection(c *call) error {
	id, err := connectionID(c)
	if err != nil {
		return err
	}
	dc, err := a.cfg.Store.GetDataConnection(c.r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return fabricerr.NotFound(ConnectionNotFound, "Connection", id)
	} else if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderConnection(dc))
}

func (a *API) listDataConnections(c *call) error {
	cs, err := a.cfg.Store.ListDataConnections(c.r.Context())
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(cs))
	for i, dc := range cs {
		out[i] = renderConnection(dc)
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
	if err := a.cfg.Store.DeleteDataConnection(c.r.Context(), id); errors.Is(err, store.ErrNotFound) {
		return fabricerr.NotFound(ConnectionNotFound, "Connection", id)
	} else if err != nil {
		return err
	}
	a.syncSourcesUsing(id)
	c.w.WriteHeader(http.StatusOK)
	return nil
}
