package emulator_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Batching as in Fabric (issue 15, item 2). fabric-docs
// add-destination-lakehouse: a Lakehouse destination commits a file when
// minimumRows rows are buffered (1 to 2,000,000, default 100,000) or
// maximumDurationInSeconds has passed (60 to 7,200, default 120),
// whichever comes first. Microsoft's template
// (../shared/fabric-event-streams-template) sets 100000 and 120.

// templateLake is Microsoft's template deployed with its Lakehouse
// destination's batching as written.
type templateLake struct {
	e        *testEnv
	base     string // the Eventstream's route
	produce  string
	dest     string // the Lakehouse destination's id
	tableDir string
}

func deployTemplate(t *testing.T, e *testEnv) templateLake {
	t.Helper()
	ws := e.workspace("batching")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "bikes_lh"}))
	tables := lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	topo := templateTopology(t, ws, lh.str("id"), "bikes")
	props := nodesByName(topo, "destinations")["LakehouseDestination"]["properties"].(map[string]any)
	if props["minimumRows"] != 100000.0 || props["maximumDurationInSeconds"] != 120.0 {
		t.Fatalf("the template's Lakehouse destination batches by %v rows / %v s; this test is about 100000 / 120", props["minimumRows"], props["maximumDurationInSeconds"])
	}
	es := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "bikes", "definition": definitionOf(topo, nil)}))
	base := "/v1/workspaces/" + ws + "/eventstreams/" + es.str("id")
	tp := e.must(200, e.call("GET", base+"/topology", nil)).Body
	ds := nodesByName(tp, "streams")["myEventstream-stream"]["id"].(string)
	dest := nodesByName(tp, "destinations")["LakehouseDestination"]["id"].(string)
	return templateLake{e: e, base: base, produce: base + "/sources/" + ds + "/events", dest: dest, tableDir: filepath.Join(tables, "bikes")}
}

// send produces bikes from..to-1 (all pass the template's filter).
func (f templateLake) send(from, to int) {
	f.e.t.Helper()
	f.e.must(200, f.e.call("POST", f.produce, bikeEvents(from, to)))
}

// bikeEvents is the produce body of bikes from..to-1.
func bikeEvents(from, to int) string {
	var evs []string
	for i := from; i < to; i++ {
		evs = append(evs, fmt.Sprintf(`{"value":{"BikepointID":"BP%d","No_Bikes":"%d"}}`, i, i))
	}
	return `{"events":[` + strings.Join(evs, ",") + `]}`
}

// sendSettled is send for large batches in a -race build, where writing
// tens of thousands of rows to the buffer can outlast the produce's 30 s
// wait: a 504 DestinationTimeout there (the events are in Kafka and will
// be delivered) is followed by a wait until settled holds. Without -race
// the produce must answer 200.
func (f templateLake) sendSettled(from, to int, settled func() bool) {
	f.e.t.Helper()
	if !raceEnabled {
		f.send(from, to)
		return
	}
	r := f.e.call("POST", f.produce, bikeEvents(from, to))
	if r.Status != 200 {
		f.e.wantError(r, 504, "DestinationTimeout")
	}
	waitFor(f.e.t, 5*time.Minute, fmt.Sprintf("bikes %d..%d delivered", from, to-1), settled)
}

// buffered reports whether the destination holds n buffered rows.
func (f templateLake) buffered(n int) func() bool {
	return func() bool { return f.delivery()["bufferedRows"] == float64(n) }
}

// delivery is the destination's delivery figures.
func (f templateLake) delivery() map[string]any {
	f.e.t.Helper()
	d := f.e.must(200, f.e.call("GET", f.base+"/destinations/"+f.dest, nil)).Body
	if p, _ := d["properties"].(map[string]any); p["minimumRows"] != 100000.0 || p["maximumDurationInSeconds"] != 120.0 {
		f.e.t.Fatalf("destination properties %v, want the template's 100000 rows / 120 s", d["properties"])
	}
	return d["delivery"].(map[string]any)
}

// advance moves the emulator clock by seconds.
func (e *testEnv) advance(seconds float64) map[string]any {
	e.t.Helper()
	return e.must(200, e.call("POST", "/_emulator/clock", map[string]any{"advanceSeconds": seconds})).Body
}

// dataCommits counts the commits of a table's _delta_log that add data
// files (0 when the table does not exist yet).
func dataCommits(t *testing.T, tableDir string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(tableDir, "_delta_log", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"add"`) {
			n++
		}
	}
	return n
}

// bikes reads the table with delta-rs (readTable) and checks it holds
// bikes 0..n-1, each once.
func bikes(t *testing.T, tableDir string, n int) {
	t.Helper()
	snap := readTable(t, tableDir)
	seen := map[string]int{}
	for _, r := range snap.Rows {
		seen[fmt.Sprint(r["bike"])]++
	}
	for i := range n {
		if c := seen[fmt.Sprintf("BP%d", i)]; c != 1 {
			t.Fatalf("bike BP%d is in the table %d times, want once (%d rows)", i, c, len(snap.Rows))
		}
	}
	if len(snap.Rows) != n {
		t.Fatalf("%d rows, want %d", len(snap.Rows), n)
	}
}

// TestTemplateBatchesUntilMaximumDurationAcrossRestart: the template as
// written commits nothing until 120 s of emulator clock have passed since
// the first buffered row; a restart in between (hard Close, same data
// directory and Kafka) loses nothing; then one commit holds every row.
func TestTemplateBatchesUntilMaximumDurationAcrossRestart(t *testing.T) {
	_, seeds := kafkaCluster(t)
	dir := t.TempDir()
	opts := []emulator.Option{emulator.WithKafka(seeds), emulator.WithDataDir(dir)}
	f := deployTemplate(t, startEnv(t, opts...))
	f.send(0, 30)
	if n := dataCommits(t, f.tableDir); n != 0 {
		t.Fatalf("%d data commits right after producing, want none (the rows are buffered)", n)
	}
	if d := f.delivery(); d["bufferedRows"] != 30.0 {
		t.Fatalf("delivery %v, want 30 buffered rows", d)
	}
	// 100 s, not 119: the clock is wall time plus the advance, and the
	// restart below must not take the buffer to 120 s on a slow machine.
	f.e.advance(100)
	if n := dataCommits(t, f.tableDir); n != 0 {
		t.Fatalf("%d data commits at 100 s, want none", n)
	}

	f.e.srv.Close()
	f.e = startEnv(t, opts...)
	if off := f.e.must(200, f.e.call("GET", "/_emulator/clock", nil)).Body["offsetSeconds"]; off != 100.0 {
		t.Fatalf("clock offset after the restart %v, want the 100 s advanced before it", off)
	}
	f.send(30, 50)
	if d := f.delivery(); d["bufferedRows"] != 50.0 || dataCommits(t, f.tableDir) != 0 {
		t.Fatalf("after the restart: delivery %v, %d data commits; want 50 buffered, none committed", d, dataCommits(t, f.tableDir))
	}
	f.e.advance(20)
	if n := dataCommits(t, f.tableDir); n != 1 {
		t.Fatalf("%d data commits at 120 s, want exactly one", n)
	}
	bikes(t, f.tableDir, 50)

	// The flush route commits what is buffered now.
	f.send(50, 55)
	r := f.e.must(200, f.e.call("POST", f.base+"/destinations/"+f.dest+"/flush", nil)).Body
	if r["committedRows"] != 5.0 || dataCommits(t, f.tableDir) != 2 {
		t.Fatalf("flush answered %v, %d data commits; want 5 rows in a second commit", r, dataCommits(t, f.tableDir))
	}
	bikes(t, f.tableDir, 55)
	f.e.wantError(f.e.call("POST", f.base+"/destinations/00000000-0000-0000-0000-00000000dead/flush", nil), 404, "DestinationNotFound")
}

// TestBatchCommitCrashWritesOnce: the emulator dies after moving its
// buffer into the journal's pending batch (before the Delta commit), and
// again after the commit but before clearing the journal: every row
// lands exactly once.
func TestBatchCommitCrashWritesOnce(t *testing.T) {
	_, seeds := kafkaCluster(t)
	dir := t.TempDir()
	opts := []emulator.Option{emulator.WithKafka(seeds), emulator.WithDataDir(dir)}
	f := deployTemplate(t, startEnv(t, opts...))
	f.send(0, 40)
	f.e.srv.Close()
	var pending store.Journal
	withStore(t, dir, func(st *store.Store) {
		j, err := st.GetJournal(context.Background(), f.dest)
		if err != nil {
			t.Fatal(err)
		}
		j.Seq++
		if pending, _, err = st.TakeBuffer(context.Background(), j); err != nil { // the commit began
			t.Fatal(err)
		}
	})
	f.e = startEnv(t, opts...) // the pending batch is written on start
	if n := dataCommits(t, f.tableDir); n != 1 {
		t.Fatalf("%d data commits after the restart, want the pending batch committed once", n)
	}
	bikes(t, f.tableDir, 40)

	f.e.srv.Close()
	withStore(t, dir, func(st *store.Store) { // committed, but the journal was not cleared
		if err := st.PutJournal(context.Background(), pending); err != nil {
			t.Fatal(err)
		}
	})
	f.e = startEnv(t, opts...)
	if n := dataCommits(t, f.tableDir); n != 1 {
		t.Fatalf("%d data commits after replaying a written batch, want still one", n)
	}
	bikes(t, f.tableDir, 40)
	if d := f.delivery(); d["bufferedRows"] != 0.0 {
		t.Fatalf("delivery %v, want nothing buffered", d)
	}
}

func withStore(t *testing.T, dir string, fn func(*store.Store)) {
	t.Helper()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fn(st)
}

// TestMinimumRowsCommitsWithoutTheClock: a native binding with
// minimumRows commits as soon as that many rows are buffered (all of
// them, in one commit), with no clock advanced.
func TestMinimumRowsCommitsWithoutTheClock(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/lakehouses", map[string]any{"displayName": "lh"}))
	dir := filepath.Join(lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string), "t")
	d := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/destinations",
		map[string]any{"type": "Lakehouse", "itemId": lh.str("id"), "table": "t", "minimumRows": 5}))
	if b, _ := d.Body["batching"].(map[string]any); b["minimumRows"] != 5.0 || b["maximumDurationInSeconds"] != 120.0 {
		t.Fatalf("batching %v, want 5 rows and Fabric's default 120 s", d.Body["batching"])
	}
	node := e.must(200, e.call("GET", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/destinations/"+d.str("id"), nil)).Body
	if p := node["properties"].(map[string]any); p["minimumRows"] != 5.0 || p["maximumDurationInSeconds"] != 120.0 {
		t.Fatalf("destination node properties %v, want Fabric's minimumRows and maximumDurationInSeconds", p)
	}
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":1}},{"value":{"n":2}},{"value":{"n":3}},{"value":{"n":4}}]}`))
	if n := dataCommits(t, dir); n != 0 {
		t.Fatalf("%d data commits at 4 rows, want none", n)
	}
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":5}},{"value":{"n":6}},{"value":{"n":7}}]}`))
	if n := dataCommits(t, dir); n != 1 {
		t.Fatalf("%d data commits at 7 rows, want one", n)
	}
	if snap := readTable(t, dir); len(snap.Rows) != 7 {
		t.Fatalf("%d rows, want the 7 buffered", len(snap.Rows))
	}

	// A native binding that sets neither commits every batch at once.
	plain := bindLakehouse(t, s, "plain")
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"n":8}}]}`))
	if n := dataCommits(t, plain.dir); n != 1 {
		t.Fatalf("%d data commits on an unbatched binding, want one at once", n)
	}
}

// TestBatchingRangesRefused: out-of-range settings are refused in
// Fabric's envelope naming the field, on a native binding and in a
// definition (fabric-docs add-destination-lakehouse ranges).
func TestBatchingRangesRefused(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/lakehouses", map[string]any{"displayName": "lh"})).str("id")
	dest := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/destinations"
	for _, c := range []struct {
		field string
		value any
	}{{"minimumRows", 0}, {"minimumRows", 2_000_001}, {"maximumDurationInSeconds", 59}, {"maximumDurationInSeconds", 7201}} {
		r := e.call("POST", dest, map[string]any{"type": "Lakehouse", "itemId": lh, "table": "t", c.field: c.value})
		e.wantError(r, 400, "InvalidInput")
		if !strings.Contains(r.str("message"), c.field) {
			t.Fatalf("%s=%v refused without naming it: %s", c.field, c.value, r.Raw)
		}
	}
	reflex := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/reflexes", map[string]any{"displayName": "rx"})).str("id")
	e.wantError(e.call("POST", dest, map[string]any{"type": "Reflex", "itemId": reflex, "minimumRows": 10}), 400, "InvalidInput")

	for _, c := range []struct {
		field string
		value any
	}{{"minimumRows", 0}, {"maximumDurationInSeconds", 7201}, {"minimumRows", "lots"}, {"maximumDurationInSeconds", 90.5}} {
		topo := templateTopology(t, s.ws, lh, "bikes")
		nodesByName(topo, "destinations")["LakehouseDestination"]["properties"].(map[string]any)[c.field] = c.value
		r := e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams", map[string]any{"displayName": fmt.Sprint("bad", c.field, c.value), "definition": definitionOf(topo, nil)})
		e.wantError(r, 400, "InvalidInput")
		if want := "destinations[0].properties." + c.field; !strings.Contains(r.str("message"), want) {
			t.Fatalf("definition %s=%v refused without naming %s: %s", c.field, c.value, want, r.Raw)
		}
	}
}

// TestArrivalTimeWindowClosesByEmulatorClock: an hour-long tumbling
// window on arrival time closes when the test advances the clock by an
// hour, before the clock route answers (no sleeping).
func TestArrivalTimeWindowClosesByEmulatorClock(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	e.must(200, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/operators",
		`{"type":"GroupBy","keys":[],"aggregates":[{"fn":"count","as":"n"}],"window":{"kind":"tumbling","duration":"1h"}}`))
	l := bindLakehouse(t, s, "per_hour")
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":1},{"value":2},{"value":3}]}`))
	if n := dataCommits(t, l.dir); n != 0 {
		t.Fatalf("%d data commits before the hour ended", n)
	}
	e.advance(3600)
	snap := readTable(t, l.dir)
	total := 0
	for _, r := range snap.Rows {
		var n int
		fmt.Sscan(fmt.Sprint(r["n"]), &n)
		total += n
	}
	if total != 3 {
		t.Fatalf("windows %v count %d events, want 3", snap.Rows, total)
	}
}

// TestClockRoute: the clock answers its time and offset, only moves
// forward, takes seconds or a duration, and serves loopback callers only.
func TestClockRoute(t *testing.T) {
	e := startEnv(t)
	if r := e.must(200, e.call("GET", "/_emulator/clock", nil)).Body; r["offsetSeconds"] != 0.0 || r["now"] == "" {
		t.Fatalf("fresh clock %v", r)
	}
	e.wantError(e.call("POST", "/_emulator/clock", map[string]any{"advanceSeconds": -1}), 400, "InvalidInput")
	e.wantError(e.call("POST", "/_emulator/clock", map[string]any{"advance": "-2m"}), 400, "InvalidInput")
	e.wantError(e.call("POST", "/_emulator/clock", map[string]any{"advance": "2m", "advanceSeconds": 1}), 400, "InvalidInput")
	e.wantError(e.call("POST", "/_emulator/clock", map[string]any{}), 400, "InvalidInput")
	e.advance(30)
	if r := e.must(200, e.call("POST", "/_emulator/clock", map[string]any{"advance": "1m30s"})).Body; r["offsetSeconds"] != 120.0 {
		t.Fatalf("after 30 s and 1m30s: %v, want offset 120", r)
	}
	rec := newRecorder()
	req := httptest.NewRequest("POST", "/_emulator/clock", strings.NewReader(`{"advanceSeconds":5}`)) // from 192.0.2.1
	e.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != 403 || !strings.Contains(rec.Body.String(), "Forbidden") {
		t.Fatalf("a remote caller got %d %s, want 403", rec.Code, rec.Body)
	}
	if r := e.must(200, e.call("GET", "/_emulator/clock", nil)).Body; r["offsetSeconds"] != 120.0 {
		t.Fatalf("the refused remote advance moved the clock: %v", r)
	}
}

// TestTemplateCommitsAtMinimumRows: the template as written commits when
// 100,000 rows are buffered, without the clock: nothing at 99,999, one
// commit holding all 100,000 at the next row.
func TestTemplateCommitsAtMinimumRows(t *testing.T) {
	f := deployTemplate(t, startEnv(t))
	const chunk = 20_000
	for from := 0; from < 100_000-chunk; from += chunk {
		f.sendSettled(from, from+chunk, f.buffered(from+chunk))
	}
	f.sendSettled(100_000-chunk, 99_999, f.buffered(99_999))
	if n := dataCommits(t, f.tableDir); n != 0 {
		t.Fatalf("%d data commits at 99,999 rows, want none", n)
	}
	if d := f.delivery(); d["bufferedRows"] != 99_999.0 {
		t.Fatalf("delivery %v, want 99999 buffered rows", d)
	}
	f.sendSettled(99_999, 100_000, func() bool { return dataCommits(t, f.tableDir) > 0 })
	if n := dataCommits(t, f.tableDir); n != 1 {
		t.Fatalf("%d data commits at 100,000 rows, want exactly one", n)
	}
	bikes(t, f.tableDir, 100_000)
}

// TestUpdatedBatchingAppliesToTheBuffer: updateDefinition lowering
// minimumRows restarts the destination with the new setting over the rows
// already buffered, which commit at the next due check (here an advance
// of 0 s, which runs it at once).
func TestUpdatedBatchingAppliesToTheBuffer(t *testing.T) {
	f := deployTemplate(t, startEnv(t))
	f.send(0, 10)
	cur := parts(t, f.e.must(200, f.e.call("POST", f.base+"/getDefinition", nil)))["eventstream.json"]
	nodesByName(cur, "destinations")["LakehouseDestination"]["properties"].(map[string]any)["minimumRows"] = 5
	f.e.must(200, f.e.call("POST", f.base+"/updateDefinition", map[string]any{"definition": definitionOf(cur, nil)}))
	if n := dataCommits(t, f.tableDir); n > 1 {
		t.Fatalf("%d data commits, want at most one", n)
	}
	f.e.advance(0)
	if n := dataCommits(t, f.tableDir); n != 1 {
		t.Fatalf("%d data commits after the update and a due check, want one", n)
	}
	bikes(t, f.tableDir, 10)
	node := f.e.must(200, f.e.call("GET", f.base+"/destinations/"+f.dest, nil)).Body
	if p := node["properties"].(map[string]any); p["minimumRows"] != 5.0 {
		t.Fatalf("destination properties %v, want minimumRows 5", p)
	}
}
