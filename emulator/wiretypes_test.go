package emulator_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// The wire types are the one description of the API's answers that Go code
// reads (the portal, fabrictest). These tests hold them to what the API
// really sends: each answer is decoded into its wire type with unknown
// fields refused, encoded again, and the two JSON documents must be equal
// (as values: key order and spacing aside). TestConformance feeds every
// answer it validates through wireRoundTrip; TestWireRoundTripNative adds
// the emulator's own routes Go code reads (bindings, data insights, logs,
// consume) and a Failed node.

// wireShapes is the wire type of each spec operation's 2xx answer, by
// operation id; an error answer of any operation is a wire.Error.
var wireShapes = func() map[string]func() any {
	m := map[string]func() any{
		"Workspaces_CreateWorkspace": func() any { return new(wire.Workspace) },
		"Workspaces_GetWorkspace":    func() any { return new(wire.Workspace) },
		"Workspaces_UpdateWorkspace": func() any { return new(wire.Workspace) },
		"Workspaces_ListWorkspaces":  func() any { return new(wire.List[wire.Workspace]) },

		"Workspaces_AddWorkspaceRoleAssignment":    func() any { return new(wire.RoleAssignment) },
		"Workspaces_GetWorkspaceRoleAssignment":    func() any { return new(wire.RoleAssignment) },
		"Workspaces_UpdateWorkspaceRoleAssignment": func() any { return new(wire.RoleAssignment) },
		"Workspaces_ListWorkspaceRoleAssignments":  func() any { return new(wire.List[wire.RoleAssignment]) },

		"Folders_ListFolders": func() any { return new(wire.List[wire.Folder]) },
		"Tables_ListTables":   func() any { return new(wire.TableList) },

		"Topology_GetEventstreamTopology":              func() any { return new(wire.Topology) },
		"Topology_GetEventstreamSource":                func() any { return new(wire.Node) },
		"Topology_GetEventstreamDestination":           func() any { return new(wire.DestinationNode) },
		"Topology_GetEventstreamSourceConnection":      func() any { return new(wire.Connection) },
		"Topology_GetEventstreamDestinationConnection": func() any { return new(wire.Connection) },

		"JobScheduler_GetItemJobInstance":   func() any { return new(wire.JobInstance) },
		"JobScheduler_ListItemJobInstances": func() any { return new(wire.List[wire.JobInstance]) },

		"LongRunningOperations_GetOperationState":  func() any { return new(wire.OperationState) },
		"LongRunningOperations_GetOperationResult": func() any { return new(wire.Item) }, // every create's result
	}
	for _, typ := range []string{"Item", "Eventstream", "Lakehouse", "Eventhouse", "KQLDatabase", "Reflex",
		"DataPipeline", "Notebook", "SparkJobDefinition", "Warehouse"} {
		plural := typ + "s"
		switch typ {
		case "Item":
			plural = "Items"
		case "Reflex":
			plural = "Reflexes"
		}
		for _, op := range []string{"Create" + typ, "Get" + typ, "Update" + typ} {
			m["Items_"+op] = func() any { return new(wire.Item) }
		}
		m["Items_List"+plural] = func() any { return new(wire.List[wire.Item]) }
		m["Items_Get"+typ+"Definition"] = func() any { return new(wire.DefinitionAnswer) }
	}
	return m
}()

// decodeStrict decodes raw into v, refusing unknown fields and trailing data.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("decode: data after the JSON value")
	}
	return nil
}

// roundTrip decodes raw strictly into v, encodes v again and reports how
// the two JSON values differ ("" when they are equal).
func roundTrip(raw []byte, v any) (string, error) {
	if err := decodeStrict(raw, v); err != nil {
		return "", err
	}
	again, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode: %w", err)
	}
	var want, got any
	if err := json.Unmarshal(raw, &want); err != nil {
		return "", fmt.Errorf("read the answer: %w", err)
	}
	if err := json.Unmarshal(again, &got); err != nil {
		return "", fmt.Errorf("read the encoding: %w", err)
	}
	if reflect.DeepEqual(want, got) {
		return "", nil
	}
	return fmt.Sprintf("sent %s\nre-encoded %s", raw, again), nil
}

// wireCoverage counts, per test, the answers each operation round-tripped.
var wireCoverage = struct {
	sync.Mutex
	byTest map[*testing.T]map[string]int
}{byTest: map[*testing.T]map[string]int{}}

// wireRoundTrip holds the answer r of operation opID to its wire type.
func wireRoundTrip(t *testing.T, opID string, r resp) {
	t.Helper()
	if len(bytes.TrimSpace(r.Raw)) == 0 {
		return // nothing to decode (204, 202, a pause)
	}
	shape := func() any { return new(wire.Error) }
	if r.Status < 400 {
		var ok bool
		if shape, ok = wireShapes[opID]; !ok {
			t.Errorf("wire: %s answered %d with a body, and no wire type is named for it: %s", opID, r.Status, r.Raw)
			return
		}
	}
	v := shape()
	diff, err := roundTrip(r.Raw, v)
	switch {
	case err != nil:
		t.Errorf("wire: %s %d into %T: %v: %s", opID, r.Status, v, err, r.Raw)
	case diff != "":
		t.Errorf("wire: %s %d through %T changes the answer:\n%s", opID, r.Status, v, diff)
	}
	wireCoverage.Lock()
	defer wireCoverage.Unlock()
	if wireCoverage.byTest[t] == nil {
		wireCoverage.byTest[t] = map[string]int{}
	}
	wireCoverage.byTest[t][fmt.Sprintf("%s %d", opID, r.Status)]++
}

// checkWireCoverage fails t unless every named shape was round-tripped,
// and logs what was.
func checkWireCoverage(t *testing.T) {
	t.Helper()
	wireCoverage.Lock()
	seen := wireCoverage.byTest[t]
	delete(wireCoverage.byTest, t)
	wireCoverage.Unlock()
	ok := map[string]bool{} // operations with a 2xx answer round-tripped
	var lines []string
	for k, n := range seen {
		var op string
		var status int
		if _, err := fmt.Sscanf(k, "%s %d", &op, &status); err != nil {
			t.Fatalf("wire: coverage key %q: %v", k, err)
		}
		ok[op] = ok[op] || status < 400
		lines = append(lines, fmt.Sprintf("%s (%d)", k, n))
	}
	sort.Strings(lines)
	t.Logf("wire: %d answer kinds round-tripped: %s", len(lines), strings.Join(lines, ", "))
	for op := range wireShapes {
		if !ok[op] && servedOp(op) {
			t.Errorf("wire: no 2xx answer of %s went through its wire type", op)
		}
	}
}

// servedOp reports whether the conformance suite drives op.
func servedOp(op string) bool {
	for _, s := range served {
		if s == op {
			return true
		}
	}
	return false
}

// mustRoundTrip holds one answer of the emulator's own routes to its wire
// type, failing t with what it was.
func mustRoundTrip(t *testing.T, what string, r resp, v any) {
	t.Helper()
	diff, err := roundTrip(r.Raw, v)
	if err != nil {
		t.Fatalf("wire: %s into %T: %v: %s", what, v, err, r.Raw)
	}
	if diff != "" {
		t.Fatalf("wire: %s through %T changes the answer:\n%s", what, v, diff)
	}
}

// TestWireRoundTripNative: the answers of the emulator's own routes that
// Go code reads go through their wire types unchanged: a binding (created,
// listed, read with its delivery counters), a Failed node with its error,
// data insights and runtime logs with attributes, records read back, and a
// job instance an Activator trigger started, with its trigger event and
// failure reason.
func TestWireRoundTripNative(t *testing.T) {
	e := startEnv(t)
	s, reflex, nb, _ := reflexSetup(t, e)
	base := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id
	l := bindLakehouse(t, s, "orders")
	eh := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventhouses", map[string]any{"displayName": "telemetry"})).str("id")
	bound := e.must(201, e.call("POST", base+"/destinations", map[string]any{"type": "Eventhouse", "itemId": eh, "table": "T"}))
	var ehDest wire.Destination
	mustRoundTrip(t, "POST …/destinations", bound, &ehDest)
	e.must(201, e.call("POST", base+"/destinations", map[string]any{"type": "Reflex", "itemId": reflex}))

	// The first event makes the table; the second has a field it lacks
	// (a Warning log with attributes). The Eventhouse cannot deliver.
	e.must(502, e.call("POST", s.produce, `{"events":[{"key":"k1","value":{"n":1},"headers":{"h":"v"}},{"value":{"n":2,"extra":"x"}}]}`))

	var tp wire.Topology
	mustRoundTrip(t, "GET …/topology", e.must(200, e.call("GET", base+"/topology", nil)), &tp)
	var failed *wire.NodeError
	for _, n := range tp.Destinations {
		if n.ID == ehDest.ID && n.Status == wire.StatusFailed {
			failed = n.Error
		}
	}
	if failed == nil || failed.ErrorCode != wire.DestinationFailed {
		t.Fatalf("the Eventhouse destination is not Failed with DestinationFailed: %+v", tp.Destinations)
	}
	// The produce answers once the Eventhouse fails; the Lakehouse may
	// still be writing its two rows.
	var one wire.DestinationNode
	waitFor(t, 10*time.Second, "the Lakehouse binding to deliver 2 rows", func() bool {
		one = wire.DestinationNode{}
		mustRoundTrip(t, "GET …/destinations/{lakehouse}", e.must(200, e.call("GET", base+"/destinations/"+l.dest, nil)), &one)
		return one.Delivery != nil && one.Delivery.Delivered == 2
	})
	mustRoundTrip(t, "GET …/destinations/{eventhouse}", e.must(200, e.call("GET", base+"/destinations/"+ehDest.ID, nil)), new(wire.DestinationNode))
	var all wire.List[wire.Destination]
	mustRoundTrip(t, "GET …/destinations", e.must(200, e.call("GET", base+"/destinations", nil)), &all)
	if len(all.Value) != 3 {
		t.Fatalf("%d bindings listed, want 3", len(all.Value))
	}

	var metrics wire.EventstreamMetrics
	mustRoundTrip(t, "GET …/metrics", e.must(200, e.call("GET", base+"/metrics", nil)), &metrics)
	if n, ok := metrics.Node(l.dest); !ok || n.Metrics["OutputEvents"] != 2 {
		t.Fatalf("the Lakehouse node's metrics: %+v", metrics.Nodes)
	}
	mustRoundTrip(t, "GET …/streams/{id}/metrics", e.must(200, e.call("GET", base+"/streams/"+s.ds+"/metrics", nil)), new(wire.NodeMetrics))
	var logs wire.List[wire.LogEntry]
	mustRoundTrip(t, "GET …/logs", e.must(200, e.call("GET", base+"/logs", nil)), &logs)
	withAttrs := 0
	for _, l := range logs.Value {
		if len(l.Attributes) > 0 {
			withAttrs++
		}
	}
	if withAttrs == 0 {
		t.Fatalf("no runtime log line with attributes: %+v", logs.Value)
	}

	var recs wire.ConsumeAnswer
	mustRoundTrip(t, "GET …/events", e.must(200, e.call("GET", s.reads+"?timeoutMs=0", nil)), &recs)
	keyed := 0
	for _, r := range recs.Value {
		if string(r.Key) == "k1" && len(r.Headers) == 1 && string(r.Headers[0].Value) == "v" {
			keyed++
		}
	}
	if recs.Count != 2 || len(recs.Value) != 2 || keyed != 1 {
		t.Fatalf("records read back: %+v", recs)
	}

	jobs := "/v1/workspaces/" + s.ws + "/items/" + nb + "/jobs/instances"
	var page wire.List[wire.JobInstance]
	waitFor(t, 10*time.Second, "two Failed job instances (no runner)", func() bool {
		page = wire.List[wire.JobInstance]{}
		mustRoundTrip(t, "GET …/jobs/instances", e.must(200, e.call("GET", jobs, nil)), &page)
		done := 0
		for _, j := range page.Value {
			if j.Status == wire.JobStatusFailed {
				done++
			}
		}
		return done == 2
	})
	j := page.Value[0]
	if j.TriggerEvent == nil || j.FailureReason == nil || j.FailureReason.ErrorCode != wire.NoJobRunner || j.StartTimeUtc == "" {
		t.Fatalf("job instance: %+v", j)
	}
	mustRoundTrip(t, "GET …/jobs/instances/{id}", e.must(200, e.call("GET", jobs+"/"+j.ID, nil)), new(wire.JobInstance))
}
