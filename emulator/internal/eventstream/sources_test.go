package eventstream

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
)

// runTopology has one source of every kind the decoder knows.
const runTopology = `{"sources": [
 {"id": "AAAA0000-0000-0000-0000-000000000001", "name": "custom", "type": "CustomEndpoint", "properties": {}},
 {"id": "AAAA0000-0000-0000-0000-000000000002", "name": "bikes", "type": "SampleData", "properties": {"type": "bicycles"}},
 {"id": "AAAA0000-0000-0000-0000-000000000003", "name": "kafka", "type": "ApacheKafka", "properties": {"dataConnectionId": "Conn-1", "topic": "t", "consumerGroupName": "g", "autoOffsetReset": "Earliest", "securityProtocol": "SASL_SSL",
   "tlsSettings": {"trustCACertificate": {"verifyHostname": false}}}},
 {"id": "AAAA0000-0000-0000-0000-000000000004", "name": "hub", "type": "AzureEventHub", "properties": {"dataConnectionId": "Hub-1", "consumerGroupName": "$Default", "startPosition": "earliest"}}
], "streams": [], "operators": [], "destinations": []}`

func TestSetDefinitionDecodesRunSources(t *testing.T) {
	var m Model
	if err := m.SetDefinition(definition.Parts{Topology: []byte(runTopology)}); err != nil {
		t.Fatal(err)
	}
	if m.Run == nil || len(m.Run.Sources) != 3 {
		t.Fatalf("run sources %+v: want SampleData, Kafka and Event Hubs, not the CustomEndpoint", m.Run)
	}
	bikes, kafka, hub := m.Run.Sources[0], m.Run.Sources[1], m.Run.Sources[2]
	if bikes.ID != "aaaa0000-0000-0000-0000-000000000002" || bikes.Sample == "" || bikes.Kafka != nil {
		t.Fatalf("sample source %+v", bikes)
	}
	k := kafka.Kafka
	if k == nil || k.DataConnectionID != "conn-1" || k.Topic != "t" || k.AutoOffsetReset != "Earliest" || k.TLS == nil || !k.TLS.NoVerifyHostname {
		t.Fatalf("kafka source %+v", k)
	}
	if h := hub.Kafka; h == nil || h.Topic != "" || h.AutoOffsetReset != "Earliest" || h.DataConnectionID != "hub-1" {
		t.Fatalf("event hub source %+v", h)
	}

	// Stored and read back, the sources come from Run; a model stored
	// before Run existed decodes them from its topology.
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Model
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got, err := back.RunSources()
	if err != nil || len(got) != 3 || got[1].Kafka.ConsumerGroupName != "g" {
		t.Fatalf("read back %+v, %v", got, err)
	}
	back.Run = nil
	old, err := back.RunSources()
	if err != nil || len(old) != 3 || old[2].Type != "AzureEventHub" {
		t.Fatalf("decoded from the topology %+v, %v", old, err)
	}
}

func FuzzSourcesOf(f *testing.F) {
	f.Add([]byte(runTopology))
	f.Add([]byte(`{"sources": [{"name": "k", "type": "ApacheKafka", "properties": {"tlsSettings": {"clientCertificate": 1}}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		top, err := definition.ParseTopology(b)
		if err != nil || top == nil {
			return
		}
		for _, s := range SourcesOf(top) {
			if s.ID != strings.ToLower(s.ID) {
				t.Fatalf("source id %q is not lower-case", s.ID)
			}
			if (s.Kafka == nil) == (s.Type != SampleDataType && !strings.EqualFold(s.Type, SampleDataType)) {
				t.Fatalf("source %+v: want Kafka properties exactly for the Kafka and Event Hubs types", s)
			}
		}
	})
}
