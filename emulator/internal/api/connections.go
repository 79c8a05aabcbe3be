package api

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// Custom endpoint connections: a definition's CustomEndpoint source or
// destination hands out Event Hubs-style connection strings, and the
// emulator's Kafka endpoint (package gateway) authenticates clients with
// them (SASL PLAIN, username "$ConnectionString", password the string).

// connectionUser is the SASL PLAIN username of the Event Hubs Kafka surface.
const connectionUser = "$ConnectionString"

// destinationConsumerGroup is the consumer group a CustomEndpoint
// destination's connection names; groups are scoped to the endpoint.
const destinationConsumerGroup = "$Default"

// CustomEndpointKafkaDisabled answers connection calls of an emulator
// whose Kafka endpoint is off (--kafka-endpoint off).
const CustomEndpointKafkaDisabled = "CustomEndpointKafkaDisabled"

// Key types of regenerateKeys.
const (
	primaryKey   = "PrimaryKey"
	secondaryKey = "SecondaryKey"
)

// Gateway is the Kafka endpoint connection strings point at (package
// gateway): its advertised address, and Revoke to close the sessions a
// rotated key opened.
type Gateway interface {
	Addr() string
	Advertise(hostport string) error
	Revoke(keyID string) int
}

// EndpointGrant is what a connection string authenticates: a session for
// KeyID (node id "/" key type) on one topic, consumer groups prefixed; a
// source's keys may send (produce), a destination's listen (consume).
type EndpointGrant struct {
	KeyID, Topic, GroupPrefix string
	Listen                    bool // false: Send
}

// AttachGateway makes g the Kafka endpoint of connection strings.
func (a *API) AttachGateway(g Gateway) { a.gateway = g }

// endpointNode finds the CustomEndpoint node {ds} (list "sources") or
// {dest} (list "destinations") of the call's Eventstream.
func (a *API) endpointNode(c *call, list string) (store.Item, string, error) {
	es, err := a.item(c, TypeEventstream, store.RoleContributor)
	if err != nil {
		return es, "", err
	}
	param, what := "ds", "Source"
	if list == "destinations" {
		param, what = "dest", "Destination"
	}
	id := strings.ToLower(c.r.PathValue(param))
	m, err := eventstream.Decode(es)
	if err != nil {
		return es, "", err
	}
	ids := m.CustomSources()
	if list == "destinations" {
		ids = m.CustomDestinations()
	}
	if !slices.Contains(ids, id) {
		e := fabricerr.NotFound(fabricerr.EntityNotFound, what, id)
		if n, _ := a.topologyNode(c, es, list, id, what); n != nil {
			e = fabricerr.New(http.StatusBadRequest, "EventstreamNodeNotCustomEndpoint",
				"%s %q is of type %v; only CustomEndpoint nodes have a connection", strings.ToLower(what), n["name"], n["type"])
		}
		return es, "", e
	}
	return es, id, nil
}

// newKey is a 256-bit shared access key, base64 like Event Hubs'.
func newKey() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// endpointKeys returns node's keys, minting them on first use.
func (a *API) endpointKeys(ctx context.Context, es store.Item, node string) (store.EndpointKeys, error) {
	k, err := a.cfg.Store.GetEndpointKeys(ctx, node)
	if !errors.Is(err, store.ErrNotFound) {
		return k, err
	}
	for range 3 { // a key name is 32 random bits: retry the unlikely clash
		k, err = a.cfg.Store.PutEndpointKeys(ctx, store.EndpointKeys{NodeID: node, EventstreamID: es.ID,
			KeyName: "key_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:8], Primary: newKey(), Secondary: newKey(), CreatedAt: a.cfg.Now()})
		if !errors.Is(err, store.ErrConflict) {
			break
		}
	}
	return k, err
}

// namespace is the fullyQualifiedNamespace of the emulator's Kafka
// endpoint: its host alone when it listens on Event Hubs' Kafka port 9093
// (so clients that append ":9093" keep working), host:port otherwise.
func (a *API) namespace() (string, error) {
	if !a.cfg.Broker.Enabled() {
		return "", kafkaError(broker.ErrNoBroker)
	}
	if a.gateway == nil {
		return "", fabricerr.New(http.StatusNotImplemented, CustomEndpointKafkaDisabled,
			"the emulator's Kafka endpoint for connection strings is off; start it with --kafka-endpoint 127.0.0.1:9093")
	}
	addr := a.gateway.Addr()
	if host, port, err := net.SplitHostPort(addr); err == nil && port == "9093" {
		return host, nil
	}
	return addr, nil
}

// connectionString is Fabric's form of a custom endpoint connection string.
func connectionString(namespace, keyName, key, entity string) string {
	return fmt.Sprintf("Endpoint=sb://%s/;SharedAccessKeyName=%s;SharedAccessKey=%s;EntityPath=%s", namespace, keyName, key, entity)
}

// connection renders the connection of node, a CustomEndpoint of es.
func (a *API) connection(ctx context.Context, es store.Item, node, list string) (map[string]any, error) {
	ns, err := a.namespace()
	if err != nil {
		return nil, err
	}
	k, err := a.endpointKeys(ctx, es, node)
	if err != nil {
		return nil, err
	}
	m, err := eventstream.Decode(es)
	if err != nil {
		return nil, err
	}
	entity, err := endpointTopic(m, node)
	if err != nil {
		return nil, err
	}
	out := map[string]any{
		// The published spec has no type here; Microsoft's Python SDK
		// (microsoft-fabric-api) reads the answer as a polymorphic
		// EndpointConnection and needs it to pick CustomEndpointConnection.
		"type":                    "CustomEndpoint",
		"fullyQualifiedNamespace": ns,
		"eventHubName":            entity,
		"accessKeys": map[string]any{
			"primaryKey":                k.Primary,
			"secondaryKey":              k.Secondary,
			"primaryConnectionString":   connectionString(ns, k.KeyName, k.Primary, entity),
			"secondaryConnectionString": connectionString(ns, k.KeyName, k.Secondary, entity),
		},
	}
	if list == "destinations" {
		out["consumerGroupName"] = destinationConsumerGroup
	}
	return out, nil
}

func (a *API) getConnection(list string) endpoint {
	return func(c *call) error {
		es, node, err := a.endpointNode(c, list)
		if err != nil {
			return err
		}
		out, err := a.connection(c.r.Context(), es, node, list)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, out)
	}
}

// regenerateKeys serves the emulator-native POST …/connection/regenerateKeys
// (Event Hubs' shape: {"keyType": "PrimaryKey"|"SecondaryKey"}): the key is
// replaced, and every Kafka session authenticated with the old one closes.
func (a *API) regenerateKeys(list string) endpoint {
	return func(c *call) error {
		es, node, err := a.endpointNode(c, list)
		if err != nil {
			return err
		}
		var req struct {
			KeyType string `json:"keyType"`
		}
		if err := a.decode(c, &req); err != nil {
			return err
		}
		if _, err := a.namespace(); err != nil {
			return err
		}
		k, err := a.endpointKeys(c.r.Context(), es, node)
		if err != nil {
			return err
		}
		switch {
		case strings.EqualFold(req.KeyType, primaryKey):
			k.Primary, req.KeyType = newKey(), primaryKey
		case strings.EqualFold(req.KeyType, secondaryKey):
			k.Secondary, req.KeyType = newKey(), secondaryKey
		default:
			return fabricerr.BadParameter("keyType", "%q is not PrimaryKey or SecondaryKey", req.KeyType)
		}
		if err := a.cfg.Store.UpdateEndpointKeys(c.r.Context(), k); err != nil {
			return err
		}
		a.gateway.Revoke(node + "/" + req.KeyType)
		out, err := a.connection(c.r.Context(), es, node, list)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, out)
	}
}

// parseConnectionString splits an Event Hubs connection string into its
// case-insensitive key=value fields.
func parseConnectionString(s string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok {
			out[strings.ToLower(k)] = strings.TrimSpace(v)
		}
	}
	return out
}

// AuthenticateEndpoint is the gateway's SASL PLAIN check: the password must
// be a connection string this emulator handed out, with a current key, for
// a CustomEndpoint node that still exists. Its error is what the Kafka
// client reports.
func (a *API) AuthenticateEndpoint(ctx context.Context, username, password string) (EndpointGrant, error) {
	if username != connectionUser {
		return EndpointGrant{}, fmt.Errorf("username must be %s (the password is the connection string)", connectionUser)
	}
	f := parseConnectionString(password)
	name, key, entity := f["sharedaccesskeyname"], f["sharedaccesskey"], f["entitypath"]
	if name == "" || key == "" {
		return EndpointGrant{}, errors.New("the password is not a connection string with SharedAccessKeyName and SharedAccessKey")
	}
	if entity == "" {
		return EndpointGrant{}, errors.New("the connection string has no EntityPath; use the one GET …/connection returned")
	}
	k, err := a.cfg.Store.EndpointKeysByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return EndpointGrant{}, fmt.Errorf("unknown SharedAccessKeyName %q", name)
	} else if err != nil {
		return EndpointGrant{}, err
	}
	var keyType string
	switch {
	case subtle.ConstantTimeCompare([]byte(key), []byte(k.Primary)) == 1:
		keyType = primaryKey
	case subtle.ConstantTimeCompare([]byte(key), []byte(k.Secondary)) == 1:
		keyType = secondaryKey
	default:
		return EndpointGrant{}, fmt.Errorf("invalid SharedAccessKey for %s (wrong, or regenerated since)", name)
	}
	es, err := a.cfg.Store.GetItem(ctx, k.EventstreamID)
	if err != nil {
		return EndpointGrant{}, fmt.Errorf("the Eventstream of %s is gone", name)
	}
	m, err := eventstream.Decode(es)
	if err != nil {
		return EndpointGrant{}, fmt.Errorf("read the Eventstream of %s: %w", name, err)
	}
	isSource := slices.Contains(m.CustomSources(), k.NodeID)
	if !isSource && !slices.Contains(m.CustomDestinations(), k.NodeID) {
		return EndpointGrant{}, fmt.Errorf("the custom endpoint of %s was removed from the Eventstream's definition", name)
	}
	topic, err := endpointTopic(m, k.NodeID)
	if err != nil {
		return EndpointGrant{}, fmt.Errorf("the custom endpoint of %s has no topic: %w", name, err)
	}
	if entity != topic {
		return EndpointGrant{}, fmt.Errorf("EntityPath %q is not the event hub of %s", entity, name)
	}
	if isSource && m.SourcePaused(k.NodeID, m.Default().ID) || !isSource && m.IsPaused(k.NodeID) {
		return EndpointGrant{}, fmt.Errorf("the custom endpoint of %s is paused; resume it (POST …/resume) to connect", name)
	}
	return EndpointGrant{KeyID: k.NodeID + "/" + keyType, Topic: entity, GroupPrefix: "ce-" + k.NodeID + "-", Listen: !isSource}, nil
}

// advertiseEndpoint serves POST /_emulator/kafka-endpoint
// {"advertised": "host:port"} (loopback callers only, like the token
// route): the address connection strings name from now on, for an
// emulator whose endpoint is published on a port chosen after it started.
func (a *API) advertiseEndpoint(c *call) error {
	host, _, err := net.SplitHostPort(c.r.RemoteAddr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return fabricerr.New(http.StatusForbidden, fabricerr.Forbidden, "the endpoint's address is set by loopback callers only (fabric-emulator advertise-endpoint inside the container)")
	}
	var req struct {
		Advertised string `json:"advertised"`
	}
	if err := a.decode(c, &req); err != nil {
		return err
	}
	if a.gateway == nil {
		return fabricerr.New(http.StatusNotImplemented, CustomEndpointKafkaDisabled, "the emulator's Kafka endpoint for connection strings is off")
	}
	if err := a.gateway.Advertise(req.Advertised); err != nil {
		return fabricerr.BadParameter("advertised", "%v; want host:port", err)
	}
	return c.JSON(http.StatusOK, map[string]string{"advertised": a.gateway.Addr()})
}

// Closing the keys and sessions of CustomEndpoint nodes that are gone is
// control.Plane.CloseEndpoints; it calls revokeSessions.

// revokeSessions closes the Kafka sessions opened with the keys of nodes.
func (a *API) revokeSessions(nodes ...string) {
	if a.gateway == nil {
		return
	}
	for _, n := range nodes {
		n = strings.ToLower(n)
		a.gateway.Revoke(n + "/" + primaryKey)
		a.gateway.Revoke(n + "/" + secondaryKey)
	}
}
