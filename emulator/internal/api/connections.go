package api

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/google/uuid"
)

// Custom endpoint connections: a definition's CustomEndpoint source or
// destination hands out Event Hubs-style connection strings, and the
// emulator's Kafka endpoint (package gateway) authenticates clients with
// them through the ingest seam (control.Ingest.Authenticate: SASL PLAIN,
// username "$ConnectionString", password the string).

// destinationConsumerGroup is the consumer group a CustomEndpoint
// destination's connection names; groups are scoped to the endpoint.
const destinationConsumerGroup = "$Default"

// CustomEndpointKafkaDisabled answers connection calls of an emulator
// whose Kafka endpoint is off (--kafka-endpoint off).
const CustomEndpointKafkaDisabled = "CustomEndpointKafkaDisabled"

// CustomEndpointAMQPDisabled answers an advertisement of the Event Hubs
// endpoint of an emulator whose AMQP endpoint is off (--amqp-endpoint off).
const CustomEndpointAMQPDisabled = "CustomEndpointAMQPDisabled"

// Key types of regenerateKeys.
const (
	primaryKey   = control.PrimaryKey
	secondaryKey = control.SecondaryKey
)

// Gateway is the Kafka endpoint connection strings point at (package
// gateway): its advertised address, and Revoke to close the sessions a
// rotated key opened.
type Gateway interface {
	Addr() string
	Advertise(hostport string) error
	Revoke(keyID string) int
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
		if n, err := a.topologyNode(c, es, list, id, what); err == nil {
			e = fabricerr.New(http.StatusBadRequest, "EventstreamNodeNotCustomEndpoint",
				"%s %q is of type %v; only CustomEndpoint nodes have a connection", strings.ToLower(what), n.Name, n.Type)
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
// endpoint (control.Namespace).
func (a *API) namespace() (string, error) {
	if !a.cfg.Broker.Enabled() {
		return "", kafkaError(broker.ErrNoBroker)
	}
	if a.gateway == nil {
		return "", fabricerr.New(http.StatusNotImplemented, CustomEndpointKafkaDisabled,
			"the emulator's Kafka endpoint for connection strings is off; start it with --kafka-endpoint 127.0.0.1:9093")
	}
	return control.Namespace(a.gateway.Addr()), nil
}

// eventHubsDoor is the Event Hubs (AMQP) endpoint, when the attached
// gateway knows one: the address connection strings name and whether it
// speaks AMQPS.
type eventHubsDoor interface {
	AMQPAddr() (addr string, tls bool)
	AMQPAdvertised() bool
	AdvertiseAMQP(hostport string) error
}

// amqpEndpoint returns what a connection string's Endpoint names for
// Event Hubs clients (control.AMQPEndpointName), whether they speak plain
// AMQP there, and false when the Event Hubs door is off.
func (a *API) amqpEndpoint() (hostport string, plain, ok bool) {
	d, isDoor := a.gateway.(eventHubsDoor)
	if !isDoor {
		return "", false, false
	}
	addr, tls := d.AMQPAddr()
	if addr == "" {
		return "", false, false
	}
	return control.AMQPEndpointName(addr, tls, d.AMQPAdvertised(), a.gateway.Addr()), !tls, true
}

// connectionString names the Event Hubs endpoint, or with the door off
// the Kafka endpoint's namespace.
func (a *API) connectionString(namespace, keyName, key, entity string) string {
	amqp, plain, ok := a.amqpEndpoint()
	if ok {
		namespace = amqp
	}
	return control.ConnectionString(namespace, keyName, key, entity, ok && plain)
}

// connection renders the connection of node, a CustomEndpoint of es.
func (a *API) connection(ctx context.Context, es store.Item, node, list string) (*wire.Connection, error) {
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
	entity, err := control.EndpointTopic(m, node)
	if err != nil {
		return nil, err
	}
	out := &wire.Connection{
		// The published spec has no type here; Microsoft's Python SDK
		// (microsoft-fabric-api) reads the answer as a polymorphic
		// EndpointConnection and needs it to pick CustomEndpointConnection.
		Type:                    "CustomEndpoint",
		FullyQualifiedNamespace: ns,
		EventHubName:            entity,
		AccessKeys: wire.AccessKeys{
			PrimaryKey:                k.Primary,
			SecondaryKey:              k.Secondary,
			PrimaryConnectionString:   a.connectionString(ns, k.KeyName, k.Primary, entity),
			SecondaryConnectionString: a.connectionString(ns, k.KeyName, k.Secondary, entity),
		},
	}
	if list == "destinations" {
		out.ConsumerGroupName = destinationConsumerGroup
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
		a.cfg.Ingest.ForgetNode(node)
		a.gateway.Revoke(node + "/" + req.KeyType)
		out, err := a.connection(c.r.Context(), es, node, list)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, out)
	}
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

// advertiseAMQPEndpoint serves POST /_emulator/amqp-endpoint
// {"advertised": "host:port"} (loopback callers only): as
// advertiseEndpoint, for the Event Hubs (AMQP) endpoint. An emulator
// without one answers 501 CustomEndpointAMQPDisabled.
func (a *API) advertiseAMQPEndpoint(c *call) error {
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
	d, ok := a.gateway.(eventHubsDoor)
	if !ok {
		return fabricerr.New(http.StatusNotImplemented, CustomEndpointAMQPDisabled, "the emulator's Event Hubs (AMQP) endpoint is off")
	}
	if addr, _ := d.AMQPAddr(); addr == "" {
		return fabricerr.New(http.StatusNotImplemented, CustomEndpointAMQPDisabled, "the emulator's Event Hubs (AMQP) endpoint is off")
	}
	if err := d.AdvertiseAMQP(req.Advertised); err != nil {
		return fabricerr.BadParameter("advertised", "%v; want host:port", err)
	}
	addr, _ := d.AMQPAddr()
	return c.JSON(http.StatusOK, map[string]string{"advertised": addr})
}

// Closing the keys and sessions of CustomEndpoint nodes that are gone is
// control.Plane.CloseEndpoints; it calls revokeSessions.

// revokeSessions closes the Kafka sessions opened with the keys of nodes,
// and has the ingest seam forget what it knew of them.
func (a *API) revokeSessions(nodes ...string) {
	for _, n := range nodes {
		a.cfg.Ingest.ForgetNode(n)
	}
	if a.gateway == nil {
		return
	}
	for _, n := range nodes {
		n = strings.ToLower(n)
		a.gateway.Revoke(n + "/" + primaryKey)
		a.gateway.Revoke(n + "/" + secondaryKey)
	}
}

// ownEndpoint points a connection string this emulator handed out, whose
// Endpoint names its Event Hubs door (the host alone, or the AMQP
// listener's own address), at its Kafka endpoint instead: an AzureEventHub
// source reads through the Kafka surface.
func (a *API) ownEndpoint(k *runtime.KafkaConnection) {
	amqp, _, ok := a.amqpEndpoint()
	if !ok || k.ConnectionString == "" {
		return
	}
	listener, _ := a.gateway.(eventHubsDoor).AMQPAddr()
	parts := strings.Split(k.ConnectionString, ";")
	for i, p := range parts {
		name, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		v = strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(v), "sb://"), "/")
		if strings.EqualFold(name, "endpoint") && (strings.EqualFold(v, amqp) || strings.EqualFold(v, listener)) {
			parts[i] = "Endpoint=sb://" + a.gateway.Addr() + "/"
		}
	}
	k.ConnectionString = strings.Join(parts, ";")
}
