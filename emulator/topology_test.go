package emulator_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/delta"
)

// rowsNow counts a table's rows with the Go reader (0 before the first commit).
func rowsNow(t *testing.T, dir string) int {
	t.Helper()
	snap, err := delta.ReadTable(dir)
	if err != nil {
		return 0
	}
	return len(snap.Rows)
}

func destStatus(t *testing.T, e *testEnv, s stream, dest string) string {
	t.Helper()
	tp := e.must(200, e.call("GET", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/topology", nil)).Body
	for _, d := range tp["destinations"].([]any) {
		if m := d.(map[string]any); m["id"] == dest {
			return m["status"].(string)
		}
	}
	t.Fatalf("destination %s not in topology %v", dest, tp)
	return ""
}

func TestPauseResumeDestination(t *testing.T) {
	dir := t.TempDir()
	e := startEnv(t, emulator.WithDataDir(dir), emulator.WithPartitions(2))
	s := newStream(e)
	l := bindLakehouse(t, s, "paused")
	dest := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/destinations/" + l.dest
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":1}}]}`))
	if n := rowsNow(t, l.dir); n != 1 {
		t.Fatalf("%d rows", n)
	}

	// GET answers Fabric's DestinationResponse, with the emulator's view beside it.
	d := e.must(200, e.call("GET", dest, nil)).Body
	props := d["properties"].(map[string]any)
	if d["type"] != "Lakehouse" || d["status"] != "Running" || props["deltaTable"] != "paused" || props["itemId"] != l.id || d["name"] == nil ||
		d["delivery"].(map[string]any)["delivered"] != 1.0 || len(d["inputNodes"].([]any)) != 1 {
		t.Fatalf("destination %v", d)
	}

	// Paused: events stay in Kafka, nothing is delivered, across a restart.
	e.must(200, e.call("POST", dest+"/pause", nil))
	if st := destStatus(t, e, s, l.dest); st != "Paused" {
		t.Fatalf("status %s", st)
	}
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":2}},{"value":{"n":3}}]}`))
	e.srv.Close()
	e = startEnv(t, emulator.WithDataDir(dir), emulator.WithPartitions(2))
	s.e = e
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":4}}]}`))
	time.Sleep(200 * time.Millisecond)
	if n := rowsNow(t, l.dir); n != 1 {
		t.Fatalf("a paused destination received rows: %d", n)
	}
	if st := destStatus(t, e, s, l.dest); st != "Paused" {
		t.Fatalf("status after restart %s", st)
	}

	// WhenLastStopped: the three events produced meanwhile arrive.
	e.wantError(e.call("POST", dest+"/resume", `{"startType":"Later"}`), 400, "InvalidInput")
	e.wantError(e.call("POST", dest+"/resume", `{"startType":"CustomTime"}`), 400, "InvalidInput")
	e.must(200, e.call("POST", dest+"/resume", `{"startType":"WhenLastStopped"}`))
	waitRows(t, l.dir, 4)
	if st := destStatus(t, e, s, l.dest); st != "Running" {
		t.Fatalf("status %s", st)
	}

	// Now: what was produced while paused is skipped.
	e.must(200, e.call("POST", dest+"/pause", nil))
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":5}},{"value":{"n":6}}]}`))
	e.must(200, e.call("POST", dest+"/resume", `{"startType":"Now"}`))
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":7}}]}`))
	if n := rowsNow(t, l.dir); n != 5 {
		t.Fatalf("%d rows after resume Now, want 5 (5 and 6 skipped)", n)
	}

	// CustomTime: from the first record at or after the time; an hour ago
	// replays the whole topic (7 records).
	e.must(200, e.call("POST", dest+"/pause", nil))
	e.must(200, e.call("POST", dest+"/resume", map[string]any{"startType": "CustomTime", "customStartDateTime": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}))
	waitRows(t, l.dir, 12)
	if n := len(readTable(t, l.dir).Rows); n != 12 {
		t.Fatalf("%d rows after resume CustomTime, want 12", n)
	}
}

func TestPauseSourceAndEventstream(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("pause")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"}))
	tables := lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	topo := map[string]any{
		"sources":      []any{map[string]any{"name": "app", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams":      []any{map[string]any{"name": "es-stream", "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": []any{map[string]any{"name": "app"}}}},
		"operators":    []any{},
		"destinations": []any{map[string]any{"name": "lake", "type": "Lakehouse", "properties": map[string]any{"workspaceId": ws, "itemId": lh.str("id"), "deltaTable": "events", "minimumRows": 1 /* commit each batch: not a batching test */}, "inputNodes": []any{map[string]any{"name": "es-stream"}}}},
	}
	es := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "es", "definition": definitionOf(topo, nil)}))
	base := "/v1/workspaces/" + ws + "/eventstreams/" + es.str("id")
	tp := e.must(200, e.call("GET", base+"/topology", nil)).Body
	src := nodesByName(tp, "sources")["app"]["id"].(string)
	ds := nodesByName(tp, "streams")["es-stream"]["id"].(string)
	destID := nodesByName(tp, "destinations")["lake"]["id"].(string)
	dir := filepath.Join(tables, "events")

	// A paused source refuses produce (by its id, and by the stream's when
	// every source feeding it is paused).
	e.must(200, e.call("POST", base+"/sources/"+src+"/pause", nil))
	if g := e.must(200, e.call("GET", base+"/sources/"+src, nil)).Body; g["status"] != "Paused" || g["type"] != "CustomEndpoint" || g["name"] != "app" {
		t.Fatalf("source %v", g)
	}
	for _, via := range []string{src, ds} {
		e.wantError(e.call("POST", base+"/sources/"+via+"/events", `{"events":[{"value":1}]}`), 409, "EventstreamSourcePaused")
	}
	e.wantError(e.call("GET", base+"/sources/"+ws, nil), 404, "EntityNotFound")
	e.must(200, e.call("POST", base+"/sources/"+src+"/resume", `{"startType":"Now"}`))
	e.must(200, e.call("POST", base+"/sources/"+src+"/events", `{"events":[{"value":{"n":1}}]}`))
	if n := rowsNow(t, dir); n != 1 {
		t.Fatalf("%d rows", n)
	}

	// The whole Eventstream: sources refuse, destinations stop; resume
	// WhenLastStopped brings back nothing lost (nothing could be produced).
	e.must(200, e.call("POST", base+"/pause", nil))
	tp = e.must(200, e.call("GET", base+"/topology", nil)).Body
	if nodesByName(tp, "sources")["app"]["status"] != "Paused" || nodesByName(tp, "destinations")["lake"]["status"] != "Paused" {
		t.Fatalf("paused topology %v", tp)
	}
	e.wantError(e.call("POST", base+"/sources/"+ds+"/events", `{"events":[{"value":1}]}`), 409, "EventstreamSourcePaused")
	e.wantError(e.call("POST", base+"/resume", nil), 400, "InvalidRequest")
	e.must(200, e.call("POST", base+"/resume", `{"startType":"WhenLastStopped"}`))
	e.must(200, e.call("POST", base+"/sources/"+ds+"/events", `{"events":[{"value":{"n":2}}]}`))
	if n := rowsNow(t, dir); n != 2 {
		t.Fatalf("%d rows after resume", n)
	}
	if g := e.must(200, e.call("GET", base+"/destinations/"+destID, nil)).Body; g["status"] != "Running" || g["name"] != "lake" {
		t.Fatalf("destination %v", g)
	}

	// A native Eventstream: its topology is its stream and its bindings.
	s := newStream(e)
	l := bindLakehouse(t, s, "native")
	tp = e.must(200, e.call("GET", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/topology", nil)).Body
	if len(tp["sources"].([]any)) != 0 || tp["streams"].([]any)[0].(map[string]any)["id"] != s.ds || destStatus(t, e, s, l.dest) != "Running" {
		t.Fatalf("native topology %v", tp)
	}
}
