package eventstream

import (
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/sample"
)

// Run sources: the source nodes of a definition the emulator runs
// (SampleData, the Kafka-protocol and the Event Hubs types), decoded from
// their JSON once, when the definition is stored, into Source values the
// runtime reads. The other source types (CustomEndpoint, and those the
// compiler refused) are not run sources.

// Source types the emulator runs besides SampleData.
var (
	// KafkaSourceTypes are the Kafka-protocol source types.
	KafkaSourceTypes = []string{"ApacheKafka", "ConfluentCloud", "AmazonMSKKafka"}
	// EventHubSourceTypes are the Event Hubs-protocol source types.
	EventHubSourceTypes = []string{"AzureEventHub", "AzureIoTHub"}
)

// SampleDataType is the type of a sample data source.
const SampleDataType = "SampleData"

// Source is a run source of a definition.
type Source struct {
	// ID is the node's id, lower-case.
	ID string `json:"id"`
	// Type is the node's type as the definition spells it (canonical once
	// the compiler accepted it).
	Type string `json:"type"`
	// Sample is a SampleData source's data set ("" for the other types).
	Sample string `json:"sample,omitempty"`
	// Kafka is a Kafka-protocol or Event Hubs source's properties (nil for
	// SampleData). An Event Hubs source's topic is its connection's event
	// hub, known when it runs; its startPosition is AutoOffsetReset.
	Kafka *KafkaSource `json:"kafka,omitempty"`
	// CDC is a PostgreSQLCDC or MySQLCDC source's properties.
	CDC *CDCSource `json:"cdc,omitempty"`
}

// KafkaSource are a Kafka-protocol (or Event Hubs) source's properties.
type KafkaSource struct {
	DataConnectionID  string `json:"dataConnectionId"`
	Topic             string `json:"topic"`
	ConsumerGroupName string `json:"consumerGroupName"`
	AutoOffsetReset   string `json:"autoOffsetReset"`
	SASLMechanism     string `json:"saslMechanism,omitempty"`
	SecurityProtocol  string `json:"securityProtocol,omitempty"`
	// TLS is the node's tlsSettings (TLSSettingsOf); nil without.
	TLS *TLSSettings `json:"tls,omitempty"`
}

// IsEventHub reports whether typ is an Event Hubs-protocol source type.
func IsEventHub(typ string) bool { return slices.Contains(EventHubSourceTypes, typ) }

// RunSources are a stored definition's run sources, kept beside it.
type RunSources struct {
	Sources []Source `json:"sources,omitempty"`
}

// SourcesOf decodes the run sources of topology t.
func SourcesOf(t *definition.Topology) []Source {
	var out []Source
	for _, n := range t.Sources {
		s := Source{ID: strings.ToLower(n.ID()), Type: n.Type}
		switch {
		case n.Is(SampleDataType):
			s.Sample, _ = sample.Canonical(n.Str("type"))
		case slices.Contains(KafkaSourceTypes, n.Type):
			k := KafkaSourceOf(n)
			s.Kafka = &k
		case IsEventHub(n.Type):
			k := eventHubSourceOf(n)
			s.Kafka = &k
		case slices.Contains(CDCSourceTypes, n.Type):
			c := CDCSourceOf(n)
			s.CDC = &c
		default:
			continue
		}
		out = append(out, s)
	}
	return out
}

// KafkaSourceOf reads the properties of Kafka-protocol source node n (an
// unreadable tlsSettings is left out: the compiler refused it already).
func KafkaSourceOf(n *definition.Node) KafkaSource {
	ts, _ := TLSSettingsOf(n)
	return KafkaSource{
		DataConnectionID:  strings.ToLower(n.Str("dataConnectionId")),
		Topic:             n.Str("topic"),
		ConsumerGroupName: n.Str("consumerGroupName"),
		AutoOffsetReset:   n.Str("autoOffsetReset"),
		SASLMechanism:     n.Str("saslMechanism"),
		SecurityProtocol:  n.Str("securityProtocol"),
		TLS:               ts,
	}
}

// eventHubSourceOf reads Event Hubs or IoT Hub source node n: its
// startPosition (Latest unless Earliest) is where a group without
// committed offsets starts.
func eventHubSourceOf(n *definition.Node) KafkaSource {
	start := "Latest"
	if strings.EqualFold(n.Str("startPosition"), "Earliest") {
		start = "Earliest"
	}
	return KafkaSource{
		DataConnectionID:  strings.ToLower(n.Str("dataConnectionId")),
		ConsumerGroupName: n.Str("consumerGroupName"),
		AutoOffsetReset:   start,
	}
}

// RunSources are the model's run sources: the ones decoded when its
// definition was stored, or, for a model stored before they were kept,
// decoded from its topology now.
func (m Model) RunSources() ([]Source, error) {
	if m.Definition == nil {
		return nil, nil
	}
	if m.Run != nil {
		return m.Run.Sources, nil
	}
	t, err := m.Topology()
	if t == nil || err != nil {
		return nil, err
	}
	return SourcesOf(t), nil
}
