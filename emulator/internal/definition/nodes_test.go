package definition

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSourceTypes: CustomEndpoint sources are kept (canonical type, an
// id); the types the resolver runs get its canonical type; any other is
// refused as not supported.
func TestSourceTypes(t *testing.T) {
	r := newResolver()
	p := mustCompile(t, r, topo(`[{"name":"a","type":"customendpoint"},{"name":"b","type":"SAMPLEDATA"}]`, `[]`, `[]`, `[]`))
	a, b := p.Topology.ByName["a"], p.Topology.ByName["b"]
	if a.Raw["type"] != "CustomEndpoint" || b.Raw["type"] != "SampleData" {
		t.Fatalf("types %v, %v", a.Raw["type"], b.Raw["type"])
	}
	if a.ID() == "" || b.ID() == "" || !slices.Equal(p.NodeIDs, []string{a.ID(), b.ID()}) {
		t.Fatalf("ids %q %q, NodeIDs %v", a.ID(), b.ID(), p.NodeIDs)
	}
	_, err := compile(t, r, topo(`[{"name":"hub","type":"AzureEventHub"}]`, `[]`, `[]`, `[]`))
	refusal(t, err, NotSupported, "sources[0].type", `source "hub" (sources[0]) is of type AzureEventHub, which this emulator cannot run: it reads from a service`)
}

// TestDefaultStreamAdded: without a DefaultStream the emulator's stream,
// named as given, is added and fed by every source.
func TestDefaultStreamAdded(t *testing.T) {
	p := mustCompile(t, newResolver(), topo(srcCE, `[]`, `[]`, strings.ReplaceAll(lakeDst, `"main"`, `"es-stream"`)))
	if p.StreamName != "es-stream" || len(p.Topology.Streams) != 1 {
		t.Fatalf("stream %q, streams %d", p.StreamName, len(p.Topology.Streams))
	}
	s := p.Topology.Streams[0]
	if s.Raw["type"] != "DefaultStream" || s.ID() != p.StreamID || p.StreamID == "" || fmt.Sprint(s.Raw["inputNodes"]) != "[map[name:src]]" {
		t.Fatalf("added stream %v (stream id %q)", s.Raw, p.StreamID)
	}
}

// TestStreamTypes: the DefaultStream is the Eventstream's stream (its id
// kept from the input); a DerivedStream gets its own id and the chain of
// operators before it.
func TestStreamTypes(t *testing.T) {
	in := Input{WorkspaceID: "ws-1", StreamID: "stream-1", StreamName: "ignored", Parts: Parts{Topology: json.RawMessage(topo(srcCE,
		`[{"name":"main","type":"defaultstream","inputNodes":[{"name":"src"}]},{"name":"hot","type":"derivedstream","inputNodes":[{"name":"f"}]}]`,
		`[{"name":"f","type":"Filter","properties":{"conditions":[{"column":{"columnName":"temp"},"operatorType":"GreaterThan","value":{"dataType":"BigInt","value":"20"}}]},"inputNodes":[{"name":"main"}]}]`,
		`[]`))}}
	p, err := Compile(t.Context(), in, newResolver())
	if err != nil {
		t.Fatal(err)
	}
	main, hot := p.Topology.ByName["main"], p.Topology.ByName["hot"]
	if p.StreamName != "main" || main.ID() != "stream-1" || main.Raw["type"] != "DefaultStream" {
		t.Fatalf("DefaultStream %v, name %q", main.Raw, p.StreamName)
	}
	if hot.Raw["type"] != "DerivedStream" || hot.ID() == "" || slices.Contains(p.NodeIDs, hot.ID()) {
		t.Fatalf("DerivedStream %v; NodeIDs %v", hot.Raw, p.NodeIDs)
	}
	if len(p.Derived) != 1 || p.Derived[0].Node != hot || !strings.Contains(string(p.Derived[0].Operators), `"gt"`) {
		t.Fatalf("derived %+v", p.Derived)
	}
	if _, ok := p.Topology.ByName["f"].Raw["id"]; ok {
		t.Fatal("an operator keeps an id")
	}
}

// TestOperatorTypes: each operator node type maps onto its pipeline spec.
func TestOperatorTypes(t *testing.T) {
	cases := []struct{ typ, props, want string }{
		{"filter", `{"conditions":[{"column":{"columnName":"a","columnPathSegments":[{"field":"b"}]},"operatorType":"Equals","value":{"dataType":"Bit","value":"true"}},{"column":"c","operator":"LessThan","value":{"dataType":"Float","value":"1.5"}}]}`,
			`{"condition":{"and":[{"field":"a.b","op":"Equals","value":true},{"field":"c","op":"LessThan","value":1.5}]},"name":"op","type":"Filter"}`},
		{"ManageFields", `{"columns":[{"type":"Rename","alias":"b","properties":{"column":{"columnName":"a"}}},{"type":"Cast","properties":{"column":{"columnName":"n"},"targetDataType":"BigInt"}},{"type":"FunctionCall","alias":"u","properties":{"functionName":"Upper","arguments":[{"expressionType":"ColumnReference","columnName":"s"},{"expressionType":"Literal","dataType":"BigInt","value":"3"}]}}]}`,
			`{"cast":{"n":"BigInt"},"compute":[{"args":[{"field":"s"},{"literal":3}],"as":"u","fn":"Upper"}],"keep":["a","n","u"],"name":"op","rename":{"a":"b"},"type":"ManageFields"}`},
		{"AGGREGATE", `{"aggregations":[{"aggregationFunction":"Sum","column":{"columnName":"v"},"alias":"total","partitionBy":[{"columnName":"k"}],"duration":{"value":5,"unit":"Second"}}]}`,
			`{"aggregates":[{"as":"total","duration":{"unit":"Second","value":5},"field":"v","fn":"Sum","partitionBy":["k"]}],"name":"op","type":"Aggregate"}`},
		{"groupBy", `{"aggregations":[{"aggregateFunction":"Count","alias":"n"}],"groupBy":[{"columnName":"k"}],"window":{"type":"Hopping","properties":{"duration":{"value":10,"unit":"Second"},"hopSize":{"value":5,"unit":"Second"}}}}`,
			`{"aggregates":[{"as":"n","fn":"Count"}],"keys":["k"],"name":"op","type":"GroupBy","window":{"duration":{"unit":"Second","value":10},"hop":{"unit":"Second","value":5},"kind":"Hopping"}}`},
		{"groupBy", `{"aggregations":[{"aggregateFunction":"Count","alias":"n"}],"window":{"type":"Sliding","properties":{"duration":{"value":10,"unit":"Second"}}}}`,
			`{"aggregates":[{"as":"n","fn":"Count"}],"name":"op","type":"GroupBy","window":{"duration":{"unit":"Second","value":10},"kind":"Sliding"}}`},
		{"groupBy", `{"aggregations":[{"aggregateFunction":"Sum","column":"v","alias":"s"}],"groupBy":["k"],"window":{"type":"Session","properties":{"timeout":{"value":5,"unit":"Minute"},"maxDuration":{"value":1,"unit":"Hour"},"partitionBy":{"expressionType":"ColumnReference","columnName":"device"}}}}`,
			`{"aggregates":[{"as":"s","field":"v","fn":"Sum"}],"keys":["k"],"name":"op","type":"GroupBy","window":{"kind":"Session","maxDuration":{"unit":"Hour","value":1},"partitionBy":"device","timeout":{"unit":"Minute","value":5}}}`},
		{"groupBy", `{"aggregations":[{"aggregateFunction":"Count","alias":"n"}],"window":{"type":"Snapshot","properties":{}}}`,
			`{"aggregates":[{"as":"n","fn":"Count"}],"name":"op","type":"GroupBy","window":{"kind":"Snapshot"}}`},
		{"Expand", `{"column":[{"expressionType":"ColumnReference","columnName":"a","columnPathSegments":[{"field":"items"}]}],"ignoreMissingOrEmpty":false}`,
			`{"fields":["a.items"],"ignoreMissingOrEmpty":false,"name":"op","type":"Expand"}`},
		{"expand", `{"column":{"columnName":"tags"}}`,
			`{"fields":["tags"],"name":"op","type":"Expand"}`},
	}
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			tp, err := ParseTopology([]byte(topo(`[]`, `[]`, `[{"name":"op","type":"`+c.typ+`","properties":`+c.props+`,"inputNodes":[{"name":"x"}]}]`, `[]`)))
			if err != nil {
				t.Fatal(err)
			}
			n := tp.Operators[0]
			spec, err := operatorSpec(n)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(spec)
			if string(got) != c.want {
				t.Fatalf("spec\n got %s\nwant %s", got, c.want)
			}
			if n.Raw["type"] != operatorMappings[strings.ToLower(c.typ)].Canonical {
				t.Fatalf("type stored as %v", n.Raw["type"])
			}
		})
	}
}

// TestDestinationTypes: Lakehouse, Eventhouse and Activator destinations
// are resolved as bindings named in the node's terms; a CustomEndpoint
// destination (first, so the others after it are planned too) has no
// binding but an id.
func TestDestinationTypes(t *testing.T) {
	r := newResolver()
	p := mustCompile(t, r, topo(srcCE, defSt, `[]`, `[
		{"name":"ce","type":"customEndpoint","inputNodes":[{"name":"main"}]},
		{"name":"l1","type":"lakehouse","properties":{"itemId":"`+lakeID+`","deltaTable":"t1","workspaceId":"00000000-0000-0000-0000-000000000000"},"inputNodes":[{"name":"main"}]},
		{"name":"l2","type":"Lakehouse","properties":{"itemId":"`+lakeID+`","tableName":"t2","workspaceId":"ws-2","minimumRows":500},"inputNodes":[{"name":"main"}]},
		{"name":"h","type":"Eventhouse","properties":{"itemId":"`+houseID+`","tableName":"ev","databaseName":"db"},"inputNodes":[{"name":"main"}]},
		{"name":"a","type":"Activator","properties":{"itemId":"`+flowID+`"},"inputNodes":[{"name":"main"}]}]`))
	rows := int64(500)
	want := []Binding{ // a Lakehouse node's batching as written (nil: Fabric's default)
		{Type: "Lakehouse", ItemID: lakeID, Table: "t1", Batching: &BatchSettings{}},
		{Type: "Lakehouse", ItemID: lakeID, Table: "t2", WorkspaceID: "ws-2", Batching: &BatchSettings{MinimumRows: &rows}},
		{Type: "Eventhouse", ItemID: houseID, Table: "ev", Database: "db", IngestionMode: ProcessedIngestion},
		{Type: "Reflex", ItemID: flowID},
	}
	if !reflect.DeepEqual(r.bindings, want) {
		t.Fatalf("bindings\n got %+v\nwant %+v", r.bindings, want)
	}
	if len(p.Destinations) != 4 || p.Destinations[2].Target.Database != "db" || p.Destinations[3].Node.Name != "a" {
		t.Fatalf("destinations %+v", p.Destinations)
	}
	if r.fields["table"] != "eventstream.json destinations[4].properties" || r.fields["itemId"] != "eventstream.json destinations[4].properties.itemId" {
		t.Fatalf("Activator fields %v", r.fields)
	}
	ce := p.Topology.ByName["ce"]
	if ce.Raw["type"] != "CustomEndpoint" || ce.ID() == "" || !slices.Contains(p.NodeIDs, ce.ID()) {
		t.Fatalf("CustomEndpoint destination %v, NodeIDs %v", ce.Raw, p.NodeIDs)
	}
	if p.Topology.ByName["l1"].Raw["type"] != "Lakehouse" || p.Topology.ByName["l1"].ID() != "" {
		t.Fatalf("a Lakehouse destination %v (its id comes when stored)", p.Topology.ByName["l1"].Raw)
	}
	if p.OwnOperators || p.Operators != nil {
		t.Fatalf("no operators, got own %v, %s", p.OwnOperators, p.Operators)
	}
	// Reflex is Activator's other name.
	r = newResolver()
	mustCompile(t, r, topo(srcCE, defSt, `[]`, `[{"name":"a","type":"Reflex","properties":{"itemId":"`+flowID+`"},"inputNodes":[{"name":"main"}]}]`))
	if len(r.bindings) != 1 || r.bindings[0].Type != "Reflex" {
		t.Fatalf("Reflex binding %+v", r.bindings)
	}
}

// TestSharedAndOwnChains: destinations reading through the same operators
// share the Eventstream's chain; when they differ each keeps its own.
func TestSharedAndOwnChains(t *testing.T) {
	filter := `[{"name":"f","type":"Filter","properties":{"conditions":[{"column":"a","operatorType":"Equals","value":1}]},"inputNodes":[{"name":"main"}]}]`
	shared := mustCompile(t, newResolver(), topo(srcCE, defSt, filter, `[
		{"name":"l1","type":"Lakehouse","properties":{"itemId":"`+lakeID+`","deltaTable":"t1"},"inputNodes":[{"name":"f"}]},
		{"name":"l2","type":"Lakehouse","properties":{"itemId":"`+lakeID+`","deltaTable":"t2"},"inputNodes":[{"name":"f"}]}]`))
	if shared.OwnOperators || !strings.Contains(string(shared.Operators), `"Filter"`) || shared.Destinations[0].Operators != nil {
		t.Fatalf("shared: own %v, operators %s, first %s", shared.OwnOperators, shared.Operators, shared.Destinations[0].Operators)
	}
	own := mustCompile(t, newResolver(), topo(srcCE, defSt, filter, `[
		{"name":"l1","type":"Lakehouse","properties":{"itemId":"`+lakeID+`","deltaTable":"t1"},"inputNodes":[{"name":"f"}]},
		{"name":"l2","type":"Lakehouse","properties":{"itemId":"`+lakeID+`","deltaTable":"t2"},"inputNodes":[{"name":"main"}]}]`))
	if !own.OwnOperators || own.Operators != nil || own.Destinations[0].Operators == nil || own.Destinations[1].Operators != nil {
		t.Fatalf("own: own %v, operators %s, chains %s / %s", own.OwnOperators, own.Operators, own.Destinations[0].Operators, own.Destinations[1].Operators)
	}
}

// TestIDsKeptFromPrevious: on update, sources, DerivedStreams and
// CustomEndpoint destinations keep their ids, matched by id then by name
// and type.
func TestIDsKeptFromPrevious(t *testing.T) {
	first := mustCompile(t, newResolver(), topo(srcCE, `[{"name":"main","type":"DefaultStream","inputNodes":[{"name":"src"}]},{"name":"d","type":"DerivedStream","inputNodes":[{"name":"main"}]}]`, `[]`,
		`[{"name":"ce","type":"CustomEndpoint","inputNodes":[{"name":"main"}]}]`))
	prev := Parts{Topology: first.Topology.Marshal()}
	srcID := first.Topology.ByName["src"].ID()
	// The source is renamed but keeps its id; the others are matched by name.
	next := topo(`[{"name":"renamed","id":"`+srcID+`","type":"CustomEndpoint"}]`, `[{"name":"main","type":"DefaultStream","inputNodes":[{"name":"renamed"}]},{"name":"d","type":"DerivedStream","inputNodes":[{"name":"main"}]}]`, `[]`,
		`[{"name":"ce","type":"CustomEndpoint","inputNodes":[{"name":"main"}]},{"name":"ce2","type":"CustomEndpoint","inputNodes":[{"name":"main"}]}]`)
	p, err := Compile(t.Context(), Input{Parts: Parts{Topology: json.RawMessage(next)}, StreamID: first.StreamID, Previous: &prev}, newResolver())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"d", "ce"} {
		if got, was := p.Topology.ByName[name].ID(), first.Topology.ByName[name].ID(); got != was {
			t.Fatalf("%s: id %q, was %q", name, got, was)
		}
	}
	if p.Topology.ByName["renamed"].ID() != srcID {
		t.Fatalf("renamed source id %q, was %q", p.Topology.ByName["renamed"].ID(), srcID)
	}
	if id := p.Topology.ByName["ce2"].ID(); id == "" || id == first.Topology.ByName["ce"].ID() {
		t.Fatalf("new destination id %q", id)
	}
}

// TestPlatformMetadata: .platform's displayName and description are read.
func TestPlatformMetadata(t *testing.T) {
	in := Input{Parts: Parts{Topology: json.RawMessage(topo(srcCE, defSt, `[]`, `[]`)), Platform: json.RawMessage(`{"metadata":{"displayName":"n","description":"d"}}`)}}
	p, err := Compile(t.Context(), in, newResolver())
	if err != nil {
		t.Fatal(err)
	}
	if p.DisplayName == nil || *p.DisplayName != "n" || p.Description == nil || *p.Description != "d" {
		t.Fatalf("metadata %v %v", p.DisplayName, p.Description)
	}
	if !strings.Contains(string(p.Topology.Marshal()), `"compatibilityLevel":"1.0"`) {
		t.Fatalf("marshal %s", p.Topology.Marshal())
	}
}
