package control

import (
	"cmp"
	"context"
	"errors"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/sample"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Checking the sources of a definition the emulator runs (SampleData, the
// Kafka-protocol and the Event Hubs types); the runners themselves are
// internal/runtime's. A wrong field is a *definition.Refusal (BadNode).

// planSource checks a definition's source of a type the emulator runs and
// canonicalises it; ok is false for the other types.
func (p *Plane) planSource(ctx context.Context, ws string, n *definition.Node) (ok bool, err error) {
	if n.Is("SampleData") {
		n.Raw["type"] = "SampleData"
		return true, checkSampleSource(n)
	}
	if t, isKafka := OneOf(n.Type, eventstream.KafkaSourceTypes); isKafka {
		n.Raw["type"] = t
		return true, p.checkKafkaSource(ctx, ws, n)
	}
	if t, isHub := OneOf(n.Type, eventstream.EventHubSourceTypes); isHub {
		n.Raw["type"] = t
		return true, p.checkEventHubSource(ctx, ws, n)
	}
	if t, isCDC := OneOf(n.Type, eventstream.CDCSourceTypes); isCDC {
		n.Raw["type"], n.Type = t, t
		return true, p.checkCDCSource(ctx, ws, n)
	}
	return false, nil
}

// checkSampleSource checks a SampleData node: properties.type names one
// of the sample data sets.
func checkSampleSource(n *definition.Node) error {
	kind, ok := sample.Canonical(n.Str("type"))
	if !ok {
		return definition.BadNode(n, "properties.type", "%q is not a sample data set; want one of %s", n.Str("type"), strings.Join(sample.Kinds, ", "))
	}
	n.Props["type"] = kind
	n.Raw["properties"] = n.Props
	return nil
}

// checkKafkaSource checks a Kafka-protocol node of workspace ws; its
// connection must be registered in that workspace.
func (p *Plane) checkKafkaSource(ctx context.Context, ws string, n *definition.Node) error {
	k := eventstream.KafkaSourceOf(n)
	for field, v := range map[string]string{"dataConnectionId": k.DataConnectionID, "topic": k.Topic, "consumerGroupName": k.ConsumerGroupName} {
		if strings.TrimSpace(v) == "" {
			return definition.BadNode(n, "properties."+field, "required")
		}
	}
	reset, ok := OneOf(cmp.Or(k.AutoOffsetReset, "Latest"), []string{"Earliest", "Latest", "None"})
	if !ok {
		return definition.BadNode(n, "properties.autoOffsetReset", "%q is not Earliest, Latest or None", k.AutoOffsetReset)
	}
	n.Props["autoOffsetReset"] = reset
	if k.SecurityProtocol != "" {
		p, ok := OneOf(k.SecurityProtocol, SecurityProtocols)
		if !ok {
			return definition.BadNode(n, "properties.securityProtocol", "%q is not one of %s", k.SecurityProtocol, strings.Join(SecurityProtocols, ", "))
		}
		n.Props["securityProtocol"] = p
	}
	if k.SASLMechanism != "" {
		m, ok := OneOf(k.SASLMechanism, SASLMechanisms)
		if !ok {
			return definition.BadNode(n, "properties.saslMechanism", "%q is not one of %s", k.SASLMechanism, strings.Join(SASLMechanisms, ", "))
		}
		n.Props["saslMechanism"] = m
	}
	conn, err := p.rt.DataConnection(ctx, ws, k.DataConnectionID)
	if errors.Is(err, store.ErrNotFound) {
		return definition.BadNode(n, "properties.dataConnectionId",
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
func checkSourceTLS(n *definition.Node, k eventstream.KafkaSource, conn runtime.KafkaConnection) error {
	ts, err := eventstream.TLSSettingsOf(n)
	if err != nil {
		field, msg, _ := strings.Cut(err.Error(), ": ")
		return definition.BadNode(n, "properties."+field, "%s", msg)
	}
	if ts == nil {
		return nil
	}
	if proto := cmp.Or(k.SecurityProtocol, conn.SecurityProtocol, "PLAINTEXT"); !strings.HasSuffix(proto, "SSL") {
		return definition.BadNode(n, "properties.tlsSettings", "securityProtocol %s has no TLS; use SSL or SASL_SSL", proto)
	}
	if _, err := runtime.ConnectionTLSProperties(ts, conn); err != nil {
		field, msg, _ := strings.Cut(err.Error(), " names")
		return definition.BadNode(n, "properties."+field, "names%s", msg)
	}
	return nil
}
