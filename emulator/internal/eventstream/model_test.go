package eventstream

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

const topologyJSON = `{
 "sources": [
  {"name": "ce-in", "type": "CustomEndpoint", "id": "AAAA-src", "properties": {}},
  {"name": "sample", "type": "SampleData", "id": "bbbb-src", "properties": {"type": "Bicycles"}}
 ],
 "streams": [{"name": "es-stream", "type": "DefaultStream", "inputNodes": [{"name": "ce-in"}, {"name": "sample"}]}],
 "destinations": [{"name": "ce-out", "type": "CustomEndpoint", "id": "CCCC-dst", "inputNodes": [{"name": "es-stream"}]}]
}`

func withDefinition(t *testing.T) Model {
	t.Helper()
	m := Model{Streams: []Stream{{ID: "DS1", Name: "es-stream", Type: DefaultStreamType, Topic: DefaultTopic("es", "DS1")}}}
	if err := m.SetDefinition(definition.Parts{Topology: json.RawMessage(topologyJSON)}); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDecodeReturnsErrors: properties that are not the model's JSON are an
// error, not an empty model.
func TestDecodeReturnsErrors(t *testing.T) {
	for _, props := range []string{`[1]`, `{"streams": "x"}`, `{"paused": {}}`, `{`} {
		if _, err := Decode(store.Item{ID: "es", Properties: json.RawMessage(props)}); err == nil {
			t.Errorf("Decode(%s): no error", props)
		}
	}
	m, err := Decode(store.Item{ID: "es"})
	if err != nil || len(m.Streams) != 0 {
		t.Fatalf("empty properties: %+v, %v", m, err)
	}
	bad := `{"streams": [], "definition": {"topology": {"sources": 3}}}`
	if _, err := Decode(store.Item{ID: "es", Properties: json.RawMessage(bad)}); err == nil {
		t.Error("a stored definition whose topology does not parse decodes")
	}
}

// TestRoundTripIndexesEndpoints: SetDefinition indexes the CustomEndpoint
// nodes (lower-case); they survive Encode/Decode, and a model stored before
// the index existed gets it from its definition on Decode.
func TestRoundTripIndexesEndpoints(t *testing.T) {
	m := withDefinition(t)
	if !slices.Equal(m.CustomSources(), []string{"aaaa-src"}) || !slices.Equal(m.CustomDestinations(), []string{"cccc-dst"}) {
		t.Fatalf("endpoints %+v", m.Custom)
	}
	var it store.Item
	if err := m.Encode(&it); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(it)
	if err != nil || !slices.Equal(got.CustomEndpoints(), []string{"aaaa-src", "cccc-dst"}) {
		t.Fatalf("decoded %+v, %v", got.Custom, err)
	}
	old := m
	old.Custom = nil
	if err := old.Encode(&it); err != nil {
		t.Fatal(err)
	}
	got, err = Decode(it)
	if err != nil || !slices.Equal(got.CustomSources(), []string{"aaaa-src"}) {
		t.Fatalf("legacy model: %+v, %v", got.Custom, err)
	}
	all, err := got.NodeIDs("sources", nil)
	if err != nil || !slices.Equal(all, []string{"aaaa-src", "bbbb-src"}) {
		t.Fatalf("source ids %v, %v", all, err)
	}
}

// TestSourcePaused covers the produce path's rule.
func TestSourcePaused(t *testing.T) {
	m := withDefinition(t)
	if m.SourcePaused("DS1", "DS1") || m.SourcePaused("aaaa-src", "DS1") {
		t.Fatal("nothing paused yet")
	}
	m.SetPaused(true, "AAAA-src")
	if !m.SourcePaused("aaaa-src", "DS1") {
		t.Error("a paused CustomEndpoint source accepts")
	}
	if !m.SourcePaused("ds1", "DS1") {
		t.Error("the stream accepts while its only CustomEndpoint source is paused")
	}
	m.SetPaused(false, "aaaa-src")
	if m.SourcePaused("DS1", "DS1") || len(m.Paused) != 0 {
		t.Errorf("resumed: paused %v", m.Paused)
	}
	m.SetPaused(true, "DS1")
	m.SetPaused(true, "ds1") // twice is once
	if !m.StreamPaused() || !m.SourcePaused("aaaa-src", "DS1") || len(m.Paused) != 1 {
		t.Errorf("whole Eventstream paused: %v", m.Paused)
	}
	native := Model{Streams: m.Streams, Paused: []string{"other"}}
	if native.SourcePaused("DS1", "DS1") {
		t.Error("a native Eventstream with no CustomEndpoint sources is paused by another node")
	}
}

// TestSpec: specs round-trip, a spec that does not decode is an error.
func TestSpec(t *testing.T) {
	s := Spec{Database: "db", Name: "n", OwnOperators: true, Operators: json.RawMessage(`[]`)}
	got, err := SpecOf(store.Destination{Spec: s.Encode()})
	if err != nil || got.Database != "db" || got.Name != "n" || !got.OwnOperators || string(got.Operators) != "[]" {
		t.Fatalf("round trip %+v, %v", got, err)
	}
	if string(Spec{}.Encode()) != "{}" {
		t.Errorf("zero spec %s", Spec{}.Encode())
	}
	if _, err := SpecOf(store.Destination{ID: "d", Spec: json.RawMessage(`"x"`)}); err == nil {
		t.Error("a string spec decodes")
	}
	if ops, err := ParseOperators(json.RawMessage("null")); ops != nil || err != nil {
		t.Errorf("null chain: %v, %v", ops, err)
	}
	if _, err := ParseOperators(json.RawMessage(`{"x":1}`)); err == nil {
		t.Error("an object parses as an operator chain")
	}
}

// TestLoadSave goes through a real store.
func TestLoadSave(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	ws := store.Workspace{ID: "ws", DisplayName: "w", CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws, store.RoleAssignment{WorkspaceID: "ws", PrincipalID: "p", PrincipalType: "User", Role: store.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	it := store.Item{ID: "es", WorkspaceID: "ws", Type: "Eventstream", DisplayName: "e", CreatedAt: time.Now()}
	if err := st.CreateItem(ctx, it); err != nil {
		t.Fatal(err)
	}
	m := withDefinition(t)
	m.SetPaused(true, "cccc-dst")
	if err := Save(ctx, st, &it, m); err != nil {
		t.Fatal(err)
	}
	_, got, err := Load(ctx, st, "es")
	if err != nil || got.Default().Topic != "es.DS1" || !got.IsPaused("CCCC-dst") || got.Definition == nil {
		t.Fatalf("loaded %+v, %v", got, err)
	}
	if _, _, err := Load(ctx, st, "missing"); err == nil {
		t.Error("a missing item loads")
	}
}

func TestTopics(t *testing.T) {
	if DefaultTopic("i", "d") != "i.d" || DerivedTopic("e", "s") != "e.s" || DrainGroup("x") != "fabric-emulator-destination-x" {
		t.Fatal("topic naming changed")
	}
}
