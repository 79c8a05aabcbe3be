package wire_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

func TestCodesAreUniqueAndKnown(t *testing.T) {
	seen := map[wire.ErrorCode]bool{}
	for _, c := range wire.Codes() {
		if c == "" || strings.ContainsAny(string(c), " \t\n") {
			t.Errorf("code %q is not a single word", c)
		}
		if seen[c] {
			t.Errorf("code %s is listed twice", c)
		}
		seen[c] = true
		if !c.Known() {
			t.Errorf("code %s is listed but not Known", c)
		}
	}
	if wire.ErrorCode("NoSuchCode").Known() {
		t.Error("an uncatalogued code is Known")
	}
	codes := wire.Codes()
	codes[0] = "Changed"
	if wire.Codes()[0] == "Changed" {
		t.Error("Codes hands out the catalogue itself")
	}
}

func TestTopologyFindsNodesByName(t *testing.T) {
	var top wire.Topology
	raw := `{"sources":[{"id":"s","name":"app","type":"CustomEndpoint","status":"Running"}],"streams":[],"operators":[],
		"destinations":[{"id":"d","name":"lake","type":"Lakehouse","inputNodes":[{"name":"app"}],"status":"Failed",
		"error":{"errorCode":"DestinationFailed","errorMessage":"disk full"}}],"compatibilityLevel":"1.0"}`
	if err := json.Unmarshal([]byte(raw), &top); err != nil {
		t.Fatal(err)
	}
	if top.Source("app").ID != "s" || top.Source("lake").ID != "" {
		t.Fatalf("Source: %+v", top.Sources)
	}
	d := top.Destination("lake")
	if d.Status != wire.StatusFailed || d.Error == nil || d.Error.ErrorCode != wire.DestinationFailed || d.Error.ErrorMessage != "disk full" {
		t.Fatalf("Destination: %+v", d)
	}
	if !d.Is("LAKEHOUSE") || d.Is("Eventhouse") {
		t.Fatal("Is does not compare types in any case")
	}
}

func TestNodeMetricsString(t *testing.T) {
	m := wire.NodeMetrics{ID: "d-1", Type: "Lakehouse", NodeType: wire.NodeTypeDestination, Metrics: map[string]int64{"OutputEvents": 2, "InputEvents": 3}}
	if got, want := m.String(), "Destination d-1 (Lakehouse): InputEvents=3, OutputEvents=2"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	em := wire.EventstreamMetrics{Nodes: []wire.NodeMetrics{m}}
	if n, ok := em.Node("D-1"); !ok || n.ID != "d-1" {
		t.Fatal("Node does not find an id in another case")
	}
	if _, ok := em.Node("d-2"); ok {
		t.Fatal("Node finds a node that is not there")
	}
}

func TestItemProperty(t *testing.T) {
	var it wire.Item
	if err := json.Unmarshal([]byte(`{"id":"i","type":"Lakehouse","properties":{"oneLakeTablesPath":"p"}}`), &it); err != nil {
		t.Fatal(err)
	}
	if it.Property("oneLakeTablesPath") != "p" || it.Property("other") != nil {
		t.Fatalf("Property: %v", it.Properties)
	}
	if (wire.Item{}).Property("x") != nil {
		t.Fatal("an item without properties has one")
	}
}

// shapes are fresh values of every answer type, for the fuzz target.
var shapes = []func() any{
	func() any { return new(wire.Error) }, func() any { return new(wire.Topology) },
	func() any { return new(wire.DestinationNode) }, func() any { return new(wire.Destination) },
	func() any { return new(wire.Connection) }, func() any { return new(wire.EventstreamMetrics) },
	func() any { return new(wire.List[wire.LogEntry]) }, func() any { return new(wire.ConsumeAnswer) },
	func() any { return new(wire.JobInstance) }, func() any { return new(wire.List[wire.Item]) },
	func() any { return new(wire.RoleAssignment) }, func() any { return new(wire.OperationState) },
	func() any { return new(wire.DefinitionAnswer) }, func() any { return new(wire.TableList) },
}

// FuzzDecode: whatever JSON a wire type accepts, encoding it and decoding
// that again gives the same value (the types lose nothing they decoded).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"errorCode":"ItemNotFound","message":"m","requestId":"r","moreDetails":[{"errorCode":"InvalidParameter","message":"x"}],"relatedResource":{"resourceId":"i","resourceType":"Item"}}`,
		`{"sources":[{"id":"a","name":"b","type":"CustomEndpoint","properties":{},"status":"Failed","error":{"errorCode":"SourceFailed","errorMessage":"m"}}],"streams":[{"id":"s","name":"n","type":"DefaultStream","properties":{},"inputNodes":[]}],"operators":[],"destinations":[],"compatibilityLevel":"1.0"}`,
		`{"id":"d","type":"Lakehouse","workspaceId":"w","itemId":"i","status":"Running","delivery":{"delivered":1,"failedAttempts":0,"bufferedRows":0},"batching":{"minimumRows":1,"maximumDurationInSeconds":2}}`,
		`{"complete":true,"count":1,"nextOffsets":{"t":{"0":1}},"value":[{"key":null,"value":"e30=","topic":"t","partition":0,"offset":0,"timestamp":"2026-01-02T03:04:05.000Z","timestampType":0,"headers":[{"key":"h","value":null}]}]}`,
		`{"id":"j","itemId":"i","jobType":"RunNotebook","invokeType":"EventTriggered","status":"Failed","rootActivityId":"j","failureReason":{"errorCode":"NoJobRunner","message":"m"},"triggerEvent":{"Key":"k","Value":"v","EventType":"e","Source":{"itemId":"i","partition":0,"offset":-1}}}`,
		`{"value":[{"time":"2026-01-02T03:04:05Z","level":"Warning","message":"m","attributes":{"field":"x"},"nodeId":"n","nodeName":"n","nodeType":"Destination"}],"continuationToken":"t"}`,
	} {
		for i := range shapes {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		first := shapes[int(which)%len(shapes)]()
		if json.Unmarshal(raw, first) != nil {
			return
		}
		enc, err := json.Marshal(first)
		if err != nil {
			t.Fatalf("encode %T: %v", first, err)
		}
		second := shapes[int(which)%len(shapes)]()
		if err := json.Unmarshal(enc, second); err != nil {
			t.Fatalf("decode the encoding of %T: %v: %s", first, err, enc)
		}
		again, _ := json.Marshal(second)
		if !reflect.DeepEqual(enc, again) {
			t.Fatalf("%T changes when encoded twice:\n%s\n%s", first, enc, again)
		}
	})
}
