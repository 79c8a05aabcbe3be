package api

import (
	"cmp"
	"context"
	"errors"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/sample"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Checking the sources of a definition the emulator runs (SampleData and
// the Kafka-protocol types) and rendering their runtime status; the
// runners themselves are internal/runtime's.

// planSource checks a definition's source of a type the emulator runs and
// canonicalises it; ok is false for the other types.
func (a *API) planSource(ctx context.Context, ws string, n *node) (ok bool, err error) {
	if n.Is("SampleData") {
		n.Raw["type"] = "SampleData"
		return true, checkSampleSource(n)
	}
	if t, isKafka := oneOf(n.Type, runtime.KafkaSourceTypes); isKafka {
		n.Raw["type"] = t
		return true, a.checkKafkaSource(ctx, ws, n)
	}
	if t, isHub := oneOf(n.Type, runtime.EventHubSourceTypes); isHub {
		n.Raw["type"] = t
		return true, a.checkEventHubSource(ctx, ws, n)
	}
	return false, nil
}

// checkSampleSource checks a SampleData node: properties.type names one
// of the sample data sets.
func checkSampleSource(n *node) error {
	kind, ok := sample.Canonical(n.Str("type"))
	if !ok {
		return badNode(n, "properties.type", "%q is not a sample data set; want one of %s", n.Str("type"), strings.Join(sample.Kinds, ", "))
	}
	n.Props["type"] = kind
	n.Raw["properties"] = n.Props
	return nil
}

// checkKafkaSource checks a Kafka-protocol node of workspace ws; its
// connection must be registered in that workspace.
func (a *API) checkKafkaSource(ctx context.Context, ws string, n *node) error {
	k := runtime.KafkaPropsOf(n)
	for field, v := range map[string]string{"dataConnectionId": k.DataConnectionID, "topic": k.Topic, "consumerGroupName": k.ConsumerGroupName} {
		if strings.TrimSpace(v) == "" {
			return badNode(n, "properties."+field, "required")
		}
	}
	reset, ok := oneOf(cmp.Or(k.AutoOffsetReset, "Latest"), []string{"Earliest", "Latest", "None"})
	if !ok {
		return badNode(n, "properties.autoOffsetReset", "%q is not Earliest, Latest or None", k.AutoOffsetReset)
	}
	n.Props["autoOffsetReset"] = reset
	if k.SecurityProtocol != "" {
		p, ok := oneOf(k.SecurityProtocol, securityProtocols)
		if !ok {
			return badNode(n, "properties.securityProtocol", "%q is not one of %s", k.SecurityProtocol, strings.Join(securityProtocols, ", "))
		}
		n.Props["securityProtocol"] = p
	}
	if k.SASLMechanism != "" {
		m, ok := oneOf(k.SASLMechanism, saslMechanisms)
		if !ok {
			return badNode(n, "properties.saslMechanism", "%q is not one of %s", k.SASLMechanism, strings.Join(saslMechanisms, ", "))
		}
		n.Props["saslMechanism"] = m
	}
	conn, err := a.rt.DataConnection(ctx, ws, k.DataConnectionID)
	if errors.Is(err, store.ErrNotFound) {
		return badNode(n, "properties.dataConnectionId",
			"connection %q is not registered in this workspace (Fabric connections do not exist locally); register the Kafka cluster first with "+
				`PUT /v1/_emulator/connections/%s {"workspaceId":"%s","bootstrapServers":"host:port","securityProtocol":"PLAINTEXT|SASL_PLAINTEXT|SSL|SASL_SSL","saslMechanism":"PLAIN|SCRAM-SHA-256|SCRAM-SHA-512","username":"…","password":"…"}`,
			k.DataConnectionID, k.DataConnectionID, ws)
	} else if err != nil {
		return err
	}
	if err := checkSourceTLS(n, k, conn); err != nil {
		return err
	}
	n.Raw["properties"] = n.Props
	return nil
}

// checkSourceTLS checks a Kafka source's tlsSettings: readable, under a
// protocol with TLS, and with the PEM it names registered on its connection.
func checkSourceTLS(n *node, k runtime.KafkaSourceProps, conn runtime.KafkaConnection) error {
	ts, err := runtime.TLSSettingsOf(n)
	if err != nil {
		field, msg, _ := strings.Cut(err.Error(), ": ")
		return badNode(n, "properties."+field, "%s", msg)
	}
	if ts == nil {
		return nil
	}
	if proto := cmp.Or(k.SecurityProtocol, conn.SecurityProtocol, "PLAINTEXT"); !strings.HasSuffix(proto, "SSL") {
		return badNode(n, "properties.tlsSettings", "securityProtocol %s has no TLS; use SSL or SASL_SSL", proto)
	}
	if _, err := runtime.ConnectionTLSProperties(ts, conn); err != nil {
		field, msg, _ := strings.Cut(err.Error(), " names")
		return badNode(n, "properties."+field, "names%s", msg)
	}
	return nil
}

// sourceStatus is a definition source's runtime status: Paused when it or
// its Eventstream is, Running for a CustomEndpoint, and for a run source
// its runner's state (Creating until it first delivered or joined, Failed
// with the reason), or Unknown without a broker.
func (a *API) sourceStatus(props eventstream.Model, n *node) (string, error) {
	id := strings.ToLower(n.ID())
	if props.IsPaused(id) || props.StreamPaused() {
		return statusPaused, nil
	}
	if n.Is("CustomEndpoint") {
		return statusRunning, nil
	}
	found, ready, err := a.rt.SourceState(id)
	if !found {
		return statusUnknown, nil
	}
	switch {
	case err != nil:
		return statusFailed, err
	case !ready:
		return statusCreating, nil
	}
	return statusRunning, nil
}
