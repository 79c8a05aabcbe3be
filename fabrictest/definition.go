package fabrictest

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// definition builds an Eventstream item definition (the parts Fabric's
// getDefinition returns) around topology, the content of eventstream.json:
// a map, a struct, or raw JSON bytes such as a file exported from Fabric.
func definition(topology any) (map[string]any, error) {
	var raw []byte
	switch v := topology.(type) {
	case []byte:
		raw = v
	case json.RawMessage:
		raw = v
	default:
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, fmt.Errorf("encode eventstream.json: %w", err)
		}
	}
	b64 := base64.StdEncoding.EncodeToString
	return map[string]any{"parts": []any{
		map[string]any{"path": "eventstream.json", "payload": b64(raw), "payloadType": "InlineBase64"},
		map[string]any{"path": "eventstreamProperties.json", "payload": b64([]byte(`{"retentionTimeInDays":1,"eventThroughputLevel":"Low"}`)), "payloadType": "InlineBase64"},
	}}, nil
}

// DeployEventstream creates an Eventstream named name from topology (the
// content of eventstream.json, see Definition) and fails the test if the
// emulator refuses it.
func (w Workspace) DeployEventstream(name string, topology any) Eventstream {
	w.env.t.Helper()
	es, err := w.TryDeployEventstream(name, topology)
	if err != nil {
		w.env.t.Fatalf("fabrictest: deploy eventstream %q in workspace %s: %v", name, w.ID, err)
	}
	return es
}

// TryDeployEventstream is DeployEventstream that returns the error (an
// *APIError naming the refused node, for instance) instead of failing.
func (w Workspace) TryDeployEventstream(name string, topology any) (Eventstream, error) {
	def, err := definition(topology)
	if err != nil {
		return Eventstream{}, err
	}
	return w.createEventstream(map[string]any{"displayName": name, "definition": def})
}

// Node is a source, stream, operator or destination of an Eventstream's
// topology, with the id the emulator assigned and its runtime status; its
// Error says why a Failed or Warning node is so.
type Node = wire.Node

// NodeError is the error of a topology node: a stable code and a message.
type NodeError = wire.NodeError

// Topology is GET …/eventstreams/{id}/topology, nodes by kind; Source and
// Destination find a node by name.
type Topology = wire.Topology

// Topology reads the Eventstream's topology and fails the test if it cannot.
func (es Eventstream) Topology() Topology {
	es.env.t.Helper()
	var t Topology
	if _, err := es.env.do(http.MethodGet, es.itemPath()+"/topology", nil, nil, 0, &t); err != nil {
		es.env.t.Fatalf("fabrictest: topology of eventstream %s: %v", es.ID, err)
	}
	return t
}

// Connection is a custom endpoint's connection (GET …/sources/{id}/connection
// or …/destinations/{id}/connection): what a Kafka client configured the
// Event Hubs way needs.
type Connection struct {
	wire.Connection

	tls *tls.Config // the endpoint's TLS (WithTLS); nil: SASL_PLAINTEXT
}

// Bootstrap is the Kafka bootstrap server of the connection: the
// namespace, with Event Hubs' Kafka port 9093 when it names none.
func (c Connection) Bootstrap() string {
	if strings.Contains(c.FullyQualifiedNamespace, ":") {
		return c.FullyQualifiedNamespace
	}
	return c.FullyQualifiedNamespace + ":9093"
}

// KafkaOpts configures a franz-go client the Event Hubs way: bootstrap
// from the namespace, SASL PLAIN with username "$ConnectionString" and the
// primary connection string as password, over TLS trusting the emulator's
// CA when the environment runs WithTLS (SASL_SSL, as Fabric). Add
// kgo.DefaultProduceTopic or kgo.ConsumeTopics with EventHubName (and
// kgo.ConsumerGroup with ConsumerGroupName for a destination).
func (c Connection) KafkaOpts() []kgo.Opt {
	opts := []kgo.Opt{kgo.SeedBrokers(c.Bootstrap()),
		kgo.SASL(plain.Auth{User: "$ConnectionString", Pass: c.AccessKeys.PrimaryConnectionString}.AsMechanism())}
	if c.tls != nil {
		opts = append(opts, kgo.DialTLSConfig(c.tls.Clone()))
	}
	return opts
}

// SourceConnection returns the connection of the CustomEndpoint source with
// id sourceID, failing the test if there is none.
func (es Eventstream) SourceConnection(sourceID string) Connection {
	return es.connection("sources", sourceID, "")
}

// DestinationConnection returns the connection of the CustomEndpoint
// destination with id destinationID, failing the test if there is none.
func (es Eventstream) DestinationConnection(destinationID string) Connection {
	return es.connection("destinations", destinationID, "")
}

// RegenerateSourceKey replaces the source's "PrimaryKey" or "SecondaryKey"
// (sessions opened with the old key close) and returns the new connection.
func (es Eventstream) RegenerateSourceKey(sourceID, keyType string) Connection {
	return es.connection("sources", sourceID, keyType)
}

func (es Eventstream) connection(list, id, regenerate string) Connection {
	es.env.t.Helper()
	path := es.itemPath() + "/" + list + "/" + url.PathEscape(id) + "/connection"
	method, body := http.MethodGet, any(nil)
	if regenerate != "" {
		method, path, body = http.MethodPost, path+"/regenerateKeys", map[string]string{"keyType": regenerate}
	}
	var c Connection
	if _, err := es.env.do(method, path, nil, body, 0, &c); err != nil {
		es.env.t.Fatalf("fabrictest: connection of %s %s: %v", strings.TrimSuffix(list, "s"), id, err)
	}
	c.tls = es.env.c.tlsConfig()
	return c
}
