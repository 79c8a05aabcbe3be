package emulator_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/fabrictest"
	"github.com/fabrictest/fabrictest/internal/testclients"
)

// The tests of this file follow fabric-docs "Add a lakehouse destination to
// an eventstream" (schema enforcement: the first record makes a new table's
// schema, later records are projected onto it, fields the table lacks are
// not written, missing ones are null), and for types the conversion rules
// of Azure Stream Analytics' "Data types" reference (a lossless conversion
// is implicit, a lossy one a data conversion error), as emulator/delta's
// documentation infers them. Every table is read by delta-rs.

// produceInOrder sends events to the stream, in one produce call or one
// call each. All events share a key, so they land in one partition and the
// destination sees them in the order sent.
func produceInOrder(s stream, oneCall bool, values ...string) {
	events := make([]string, len(values))
	for i, v := range values {
		events[i] = `{"key":"k","value":` + v + `}`
	}
	if oneCall {
		s.e.must(200, s.e.call("POST", s.produce, `{"events":[`+strings.Join(events, ",")+`]}`))
		return
	}
	for _, ev := range events {
		s.e.must(200, s.e.call("POST", s.produce, `{"events":[`+ev+`]}`))
	}
}

// eachWay runs a test once with all events in one produce call and once
// with a call per event: both must behave the same.
func eachWay(t *testing.T, test func(t *testing.T, oneCall bool)) {
	for _, oneCall := range []bool{true, false} {
		t.Run(map[bool]string{true: "one produce call", false: "a call per event"}[oneCall], func(t *testing.T) {
			test(t, oneCall)
		})
	}
}

// nodeOf is the destination's data insights.
func nodeOf(l lake) *insights.Node { return emulator.SchemaEnforcementInsights(l.s.e.srv, l.dest) }

// logWith returns the destination's runtime-log entries whose message holds
// every part.
func logWith(l lake, parts ...string) []insights.Entry {
	var out []insights.Entry
	for _, e := range nodeOf(l).Logs() {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(e.Message, p)
		}
		if all {
			out = append(out, e)
		}
	}
	return out
}

// rowsOf reads column col of every row of the table with delta-rs, as
// [python type name, value] pairs, the rows sorted by column by (delta-rs
// reads the files in no set order).
func rowsOf(t *testing.T, dir, col, by string) string {
	t.Helper()
	py, err := testclients.DeltaPython()
	if err != nil {
		t.Fatal(err)
	}
	out := testclients.Run(t, nil, py, "-c", `import json, os, sys
from deltalake import DeltaTable
vals = DeltaTable(sys.argv[1]).to_pyarrow_table().sort_by(sys.argv[3]).column(sys.argv[2]).to_pylist()
print(json.dumps([[type(v).__name__, v] for v in vals]), flush=True)
os._exit(0)  # deltalake's native threads may abort the interpreter's teardown`, dir, col, by)
	return strings.TrimSpace(string(out))
}

func TestSchemaEnforcementFirstRecordMakesTheSchema(t *testing.T) {
	eachWay(t, func(t *testing.T, oneCall bool) {
		e := startEnv(t)
		s := newStream(e)
		l := bindLakehouse(t, s, "first")
		produceInOrder(s, oneCall, `{"id":1,"a":"x"}`, `{"id":2,"b":"y"}`)
		snap := readTable(t, l.dir)
		if got := columnTypes(snap); len(got) != 2 || got["id"] != "long" || got["a"] != "string" {
			t.Fatalf("columns %v, want id long and a string", got)
		}
		if got := columnsOf(t, l.dir); got != "id,a" {
			t.Fatalf("columns read by delta-rs: %s, want id,a (the first record's order)", got)
		}
		if got := rowsOf(t, l.dir, "a", "id"); got != `[["str", "x"], ["NoneType", null]]` {
			t.Fatalf("column a read by delta-rs: %s", got)
		}
		if got := rowsOf(t, l.dir, "id", "id"); got != `[["int", 1], ["int", 2]]` {
			t.Fatalf("column id read by delta-rs: %s", got)
		}
		if c := nodeOf(l).Counters(); c[insights.DroppedFields] != 1 || c[insights.DataConversionErrors] != 0 {
			t.Fatalf("counters %v, want one dropped field", c)
		}
		warned := logWith(l, `"b"`, `"y"`)
		if len(warned) != 1 || warned[0].Level != insights.LevelWarning {
			t.Fatalf("runtime logs %+v, want one warning about field b", nodeOf(l).Logs())
		}
	})
}

// columnsOf is the table's column names in the order of the Arrow schema
// delta-rs reads.
func columnsOf(t *testing.T, dir string) string {
	t.Helper()
	rs, err := testclients.DeltaRS(t.Context(), dir)
	if err != nil {
		t.Fatalf("delta-rs: %v", err)
	}
	return strings.Join(rs.Columns, ",")
}

// TestSchemaEnforcementColumnsInTheRecordsOrder: the first record makes
// the schema, its columns and its objects' members in the order the
// record has them, here the reverse of name order; later records, in any
// order, do not move them.
func TestSchemaEnforcementColumnsInTheRecordsOrder(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	l := bindLakehouse(t, s, "reversed")
	produceInOrder(s, true, `{"zone":"eu","when":"2026-11-30T12:00:00Z","reading":{"v":1.5,"unit":"C"},"id":7}`,
		`{"id":8,"reading":{"unit":"F","v":2},"when":"2026-11-30T12:01:00Z","zone":"us"}`)
	snap := readTable(t, l.dir)
	if got := columnsOf(t, l.dir); got != "zone,when,reading,id" {
		t.Fatalf("columns read by delta-rs: %s, want zone,when,reading,id", got)
	}
	if got := snap.Schema.String(); got != "struct<zone:string,when:timestamp,reading:struct<v:double,unit:string>,id:long>" {
		t.Fatalf("schema %s", got)
	}
	if got := rowsOf(t, l.dir, "zone", "id"); got != `[["str", "eu"], ["str", "us"]]` {
		t.Fatalf("column zone read by delta-rs: %s", got)
	}
}

func TestSchemaEnforcementLossyNumberIsAConversionError(t *testing.T) {
	eachWay(t, func(t *testing.T, oneCall bool) {
		e := startEnv(t)
		s := newStream(e)
		l := bindLakehouse(t, s, "lossy")
		produceInOrder(s, oneCall, `{"q":1}`, `{"q":1.5}`)
		readTable(t, l.dir)
		if got := rowsOf(t, l.dir, "q", "q"); got != `[["int", 1]]` {
			t.Fatalf("column q read by delta-rs: %s", got)
		}
		if c := nodeOf(l).Counters(); c[insights.DataConversionErrors] != 1 || c[insights.DroppedFields] != 0 {
			t.Fatalf("counters %v, want one data conversion error", c)
		}
		if logged := logWith(l, `"q"`, "1.5", "BigInt"); len(logged) != 1 || logged[0].Level != insights.LevelWarning {
			t.Fatalf("runtime logs %+v, want one naming field q and value 1.5", nodeOf(l).Logs())
		}
		d := e.must(200, e.call("GET", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/destinations/"+l.dest, nil))
		if delivery := decodeAs[fabrictest.Destination](t, d).Delivery; delivery.RejectedRows != 1 {
			t.Fatalf("destination status: %s", d.Raw)
		}
		parked := readParked(t, l, "lossy")
		if len(parked) != 1 || parked[0]["value"] != `{"q":1.5}` || parked[0]["metric"] != "DataConversionErrors" ||
			!strings.Contains(fmt.Sprint(parked[0]["reason"]), `"q"`) {
			t.Fatalf("parked records %v", parked)
		}
	})
}

// readParked reads the destination's rejected records.
func readParked(t *testing.T, l lake, table string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(l.dir)), "Files", "_rejected", table, l.dest+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("parked line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func TestSchemaEnforcementIntegerIntoFloatColumn(t *testing.T) {
	eachWay(t, func(t *testing.T, oneCall bool) {
		e := startEnv(t)
		s := newStream(e)
		l := bindLakehouse(t, s, "widened")
		produceInOrder(s, oneCall, `{"f":1.5}`, `{"f":2}`)
		if got := columnTypes(readTable(t, l.dir))["f"]; got != "double" {
			t.Fatalf("column f is %s", got)
		}
		if got := rowsOf(t, l.dir, "f", "f"); got != `[["float", 1.5], ["float", 2.0]]` {
			t.Fatalf("column f read by delta-rs: %s", got)
		}
		if c := nodeOf(l).Counters(); c[insights.DataConversionErrors] != 0 {
			t.Fatalf("counters %v", c)
		}
	})
}

// TestSchemaEnforcementKeepsATableMadeBeforehand: a table created before
// the destination is bound (by delta-rs here, by a notebook in Fabric)
// keeps its schema exactly; events are projected onto it.
func TestSchemaEnforcementKeepsATableMadeBeforehand(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/lakehouses", map[string]any{"displayName": "lh_notebook"}))
	dir := filepath.Join(lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string), "made")
	py, err := testclients.DeltaPython()
	if err != nil {
		t.Fatal(err)
	}
	testclients.Run(t, nil, py, "-c", `import os, sys, pyarrow as pa, deltalake
deltalake.write_deltalake(sys.argv[1], pa.table({"name": pa.array(["a"]), "id": pa.array([1], pa.int64()), "score": pa.array([0.5])}))
os._exit(0)  # deltalake's native threads may abort the interpreter's teardown`, dir)
	d := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/destinations",
		map[string]any{"type": "Lakehouse", "itemId": lh.str("id"), "table": "made"}))
	l := lake{s: s, id: lh.str("id"), dest: d.str("id"), dir: dir}
	produceInOrder(s, true, `{"id":2,"name":"b","score":3,"extra":true}`, `{"id":"x"}`, `{"id":3.0}`)

	snap := readTable(t, dir)
	if got := strings.Join(snap.Schema.Names(), ","); got != "name,id,score" || snap.Schema.String() != "struct<name:string,id:long,score:double>" {
		t.Fatalf("schema %s, want delta-rs' struct<name:string,id:long,score:double>", snap.Schema)
	}
	// No commit after delta-rs' own changes the table's metadata.
	for v := int64(1); v <= snap.Version; v++ {
		commit, err := os.ReadFile(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", v)))
		if err != nil || strings.Contains(string(commit), `"metaData"`) {
			t.Fatalf("version %d: %s (%v)", v, commit, err)
		}
	}
	if got := rowsOf(t, dir, "id", "id"); got != `[["int", 1], ["int", 2], ["int", 3]]` {
		t.Fatalf("column id read by delta-rs: %s", got)
	}
	if got := rowsOf(t, dir, "score", "id"); got != `[["float", 0.5], ["float", 3.0], ["NoneType", null]]` {
		t.Fatalf("column score read by delta-rs: %s", got)
	}
	if c := nodeOf(l).Counters(); c[insights.DroppedFields] != 1 || c[insights.DataConversionErrors] != 1 {
		t.Fatalf("counters %v, want one dropped field (extra) and one conversion error (id \"x\")", c)
	}
}
