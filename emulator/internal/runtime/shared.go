package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// KafkaError maps broker failures: no broker is 501, anything else 502.
func KafkaError(err error) error {
	if errors.Is(err, broker.ErrNoBroker) {
		return fabricerr.New(http.StatusNotImplemented, fabricerr.KafkaNotConfigured,
			"this emulator runs without a Kafka broker (--kafka none); restart it with --kafka embedded, "+
				"or attach a cluster with --kafka host:port[,host:port] or FABRIC_KAFKA_BOOTSTRAP")
	}
	var fe *fabricerr.Error
	if errors.As(err, &fe) {
		return fe
	}
	return fabricerr.New(http.StatusBadGateway, fabricerr.KafkaUnavailable, "the Kafka broker failed: %v", err)
}

// partitions is the partition count of s's topic: one for a DerivedStream
// (so its records keep the order the exactly-once protocol relies on), the
// broker's count otherwise (0).
func partitions(s eventstream.Stream) int32 {
	if s.Type == eventstream.DerivedStreamType {
		return 1
	}
	return 0
}

// EnsureStreamTopic creates s's topic unless the broker knows it exists.
func (rt *Runtime) EnsureStreamTopic(ctx context.Context, s eventstream.Stream) error {
	if err := rt.cfg.Broker.EnsureTopicPartitions(ctx, s.Topic, partitions(s)); err != nil {
		return KafkaError(err)
	}
	return nil
}

// KafkaConnection is a registered connection to a Kafka cluster.
type KafkaConnection struct {
	BootstrapServers string `json:"bootstrapServers"`
	SecurityProtocol string `json:"securityProtocol,omitempty"`
	SASLMechanism    string `json:"saslMechanism,omitempty"`
	Username         string `json:"username,omitempty"`
	Password         string `json:"password,omitempty"`
	// ConnectionString is an Event Hubs (or IoT Hub built-in endpoint)
	// connection string; registration derives the fields above and EventHub
	// from it, and clears it (the password holds it).
	ConnectionString string `json:"connectionString,omitempty"`
	// EventHub is the connection string's EntityPath: the topic Event Hubs
	// and IoT Hub sources read.
	EventHub string `json:"eventHub,omitempty"`
	// CACertificates, ClientCertificate and ClientKey (PEM) stand in for
	// the Key Vault certificates a source's tlsSettings name.
	CACertificates    string `json:"caCertificates,omitempty"`
	ClientCertificate string `json:"clientCertificate,omitempty"`
	ClientKey         string `json:"clientKey,omitempty"`
	// Server and Database make it a database connection instead, the one
	// PostgreSQLCDC and MySQLCDC sources name: the server's host (with a
	// port, host:port, that wins over the source's port property) and the
	// database; Username and Password log in.
	Server   string `json:"server,omitempty"`
	Database string `json:"database,omitempty"`
}

// DataConnection loads connection id for a source of workspace ws: a
// connection of another workspace (or of none) is ErrNotFound.
func (rt *Runtime) DataConnection(ctx context.Context, ws, id string) (KafkaConnection, error) {
	var k KafkaConnection
	c, err := rt.cfg.Store.GetDataConnection(ctx, strings.ToLower(id))
	if err != nil {
		return k, err
	}
	if c.WorkspaceID == "" || c.WorkspaceID != ws {
		return k, store.ErrNotFound
	}
	if err := json.Unmarshal(c.Spec, &k); err != nil {
		return k, fmt.Errorf("read connection %s: %w", id, err)
	}
	return k, nil
}

// tableDir is the Delta table directory of a Lakehouse table.
func (rt *Runtime) tableDir(workspaceID, lakehouseID, table string) string {
	return filepath.Join(rt.cfg.OneLakeDir, workspaceID, lakehouseID, "Tables", table)
}
