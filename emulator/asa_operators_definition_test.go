package emulator_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
)

// asaTopology is CustomEndpoint → DefaultStream → Union, Join, Expand and
// GroupBy over Sliding, Session and Snapshot windows, each into its own
// Lakehouse table, the nodes spelled as in Microsoft's
// fabric-event-streams-template and the Fabric REST API's operator.json.
const asaTopology = `{
 "sources":[{"name":"src","type":"CustomEndpoint","properties":{}}],
 "streams":[{"name":"main","type":"DefaultStream","properties":{},"inputNodes":[{"name":"src"}]}],
 "operators":[
  {"name":"low","type":"Filter","inputNodes":[{"name":"main"}],"properties":{"conditions":[{"column":{"columnName":"v"},"operatorType":"LessThan","value":{"dataType":"BigInt","value":"2"}}]}},
  {"name":"hot","type":"Filter","inputNodes":[{"name":"main"}],"properties":{"conditions":[{"column":{"columnName":"v"},"operatorType":"GreaterThanOrEquals","value":{"dataType":"BigInt","value":"3"}}]}},
  {"name":"both","type":"Union","inputNodes":[{"name":"hot"},{"name":"low"}],"properties":{}},
  {"name":"pair","type":"Join","inputNodes":[{"name":"low"},{"name":"hot"}],"properties":{"joinType":"Inner",
    "joinOn":[{"left":{"node":"low","columnName":"k"},"right":{"node":"hot","columnName":"k"}}],"duration":{"value":5,"unit":"Second"}}},
  {"name":"each","type":"Expand","inputNodes":[{"name":"main"}],"properties":{"column":{"node":null,"columnName":"tags"},"ignoreMissingOrEmpty":true}},
  {"name":"slide","type":"GroupBy","inputNodes":[{"name":"main"}],"properties":{"groupBy":[{"columnName":"k"}],
    "aggregations":[{"aggregateFunction":"Count","column":{"columnName":"v"},"alias":"n"},{"aggregateFunction":"Sum","column":{"columnName":"v"},"alias":"s"}],
    "window":{"type":"Sliding","properties":{"duration":{"value":10,"unit":"Second"}}}}},
  {"name":"sess","type":"GroupBy","inputNodes":[{"name":"main"}],"properties":{"groupBy":[{"columnName":"k"}],
    "aggregations":[{"aggregateFunction":"Count","column":{"columnName":"v"},"alias":"n"},{"aggregateFunction":"Sum","column":{"columnName":"v"},"alias":"s"}],
    "window":{"type":"Session","properties":{"timeout":{"value":5,"unit":"Second"},"maxDuration":{"value":1,"unit":"Minute"},"partitionBy":{"columnName":"k"}}}}},
  {"name":"snap","type":"GroupBy","inputNodes":[{"name":"main"}],"properties":{
    "aggregations":[{"aggregateFunction":"Count","column":{"columnName":"v"},"alias":"n"},{"aggregateFunction":"Sum","column":{"columnName":"v"},"alias":"s"}],
    "window":{"type":"Snapshot","properties":{}}}}],
 "destinations":[%s]}`

func TestASAOperatorsDefinitionIntoLakehouse(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("asa")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "asa_lh"}))
	tables := lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	names := []string{"both", "pair", "each", "slide", "sess", "snap"}
	var dests []string
	for _, n := range names {
		dests = append(dests, fmt.Sprintf(`{"name":"to_%s","type":"Lakehouse","inputNodes":[{"name":%q}],"properties":{"workspaceId":%q,"itemId":%q,"deltaTable":%q}}`,
			n, n, ws, lh.str("id"), n))
	}
	var topo map[string]any
	if err := json.Unmarshal([]byte(fmt.Sprintf(asaTopology, strings.Join(dests, ","))), &topo); err != nil {
		t.Fatal(err)
	}
	es := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "asa", "definition": definitionOf(topo, nil)}))
	base := "/v1/workspaces/" + ws + "/eventstreams/" + es.str("id")
	src := nodesByName(e.must(200, e.call("GET", base+"/topology", nil)).Body, "sources")["src"]["id"].(string)

	// Record times an hour ahead of the emulator clock, so that the wall
	// clock closes nothing until the test advances it past them; one key,
	// so one partition in order.
	now, err := time.Parse(time.RFC3339Nano, e.must(200, e.call("GET", "/_emulator/clock", nil)).str("now"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := now.Add(time.Hour).Truncate(time.Minute)
	var evs []string
	for _, ev := range []struct {
		sec  int
		body string
	}{
		{0, `"id":1,"k":"a","v":1,"tags":["x","y"]`}, {2, `"id":2,"k":"b","v":2,"tags":[]`},
		{4, `"id":3,"k":"a","v":3,"tags":["z"]`}, {4, `"id":4,"k":"a","v":4`}, {30, `"id":5,"k":"b","v":5,"tags":["w"]`},
	} {
		evs = append(evs, fmt.Sprintf(`{"key":"m","timestamp":%q,"value":{%s}}`, t0.Add(time.Duration(ev.sec)*time.Second).Format(time.RFC3339), ev.body))
	}
	e.must(200, e.call("POST", base+"/sources/"+src+"/events", `{"events":[`+strings.Join(evs, ",")+`]}`))
	e.advance(3700) // past the record times: the windows close
	e.advance(121)  // the rows they gave are held 120 s by the Lakehouse batching

	sec := func(v any) string {
		ts, _ := v.(time.Time)
		return fmt.Sprint(ts.Sub(t0).Seconds())
	}
	rowsOf := func(table string, f func(r map[string]any) string) string {
		var got []string
		for _, r := range readTable(t, filepath.Join(tables, table)).Rows {
			got = append(got, f(r))
		}
		sort.Strings(got)
		return strings.Join(got, " | ")
	}
	win := func(r map[string]any) string {
		return fmt.Sprintf("%v %s..%s n=%v s=%v", r["k"], sec(r["window_start"]), sec(r["window_end"]), r["n"], r["s"])
	}
	for _, c := range []struct {
		table string
		f     func(map[string]any) string
		want  string
	}{
		{"both", func(r map[string]any) string { return fmt.Sprint(r["id"]) }, "1 | 3 | 4 | 5"},
		{"pair", func(r map[string]any) string {
			return fmt.Sprint(r["id"], "+", r["id_right"], " ", r["k"], r["k_right"])
		}, "1+3 aa | 1+4 aa"},
		{"each", func(r map[string]any) string { return fmt.Sprint(r["id"], r["tags"]) }, "1x | 1y | 3z | 5w"},
		// Sliding 10 s: a enters at 0 and 4 (twice), 0 leaves at 10; b enters at 2 and 30.
		{"slide", win, "a -10..0 n=1 s=1 | a -6..4 n=3 s=8 | a 0..10 n=2 s=7 | b -8..2 n=1 s=2 | b 20..30 n=1 s=5"},
		// Sessions per k, 5 s timeout.
		{"sess", win, "a 0..9 n=3 s=8 | b 2..7 n=1 s=2 | b 30..35 n=1 s=5"},
		// Snapshot: the events of each instant.
		{"snap", win, "<nil> 0..0 n=1 s=1 | <nil> 2..2 n=1 s=2 | <nil> 30..30 n=1 s=5 | <nil> 4..4 n=2 s=7"},
	} {
		if got := rowsOf(c.table, c.f); got != c.want {
			t.Errorf("%s:\n got  %s\nwant %s", c.table, got, c.want)
		}
	}
}

// TestSessionWindowSurvivesRestart: a restart in the middle of an open
// session (the events it holds are in the destination's snapshot) neither
// loses nor repeats one, as TestGroupByTumblingIntoLakehouseSurvivesRestart
// shows for tumbling windows.
func TestSessionWindowSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	e := startEnv(t, emulator.WithDataDir(dir), emulator.WithPartitions(1))
	s := newStream(e)
	e.must(200, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/operators", `[
		{"type":"GroupBy","keys":["device"],"aggregates":[{"fn":"count","as":"n"},{"fn":"sum","field":"v","as":"s"}],
		 "window":{"kind":"session","timeout":"5s","maxDuration":"1m","partitionBy":"device","on":"ts"}}]`))
	l := bindLakehouse(t, s, "sessions")
	ev := func(dev string, sec, v int) string {
		return fmt.Sprintf(`{"value":{"device":%q,"ts":"2026-11-29T10:%02d:%02dZ","v":%d}}`, dev, sec/60, sec%60, v)
	}
	e.must(200, e.call("POST", s.produce, `{"events":[`+ev("a", 1, 1)+`,`+ev("a", 3, 2)+`]}`))
	e.srv.Close()
	e2 := startEnv(t, emulator.WithDataDir(dir), emulator.WithPartitions(1))
	s.e = e2
	e2.must(200, e2.call("POST", s.produce, `{"events":[`+ev("a", 5, 4)+`,`+ev("b", 30, 8)+`,`+ev("b", 120, 16)+`]}`))
	var got []string
	for _, r := range readTable(t, l.dir).Rows {
		got = append(got, fmt.Sprint(r["device"], " ", r["window_start"].(time.Time).Format("15:04:05"), "-",
			r["window_end"].(time.Time).Format("15:04:05"), " n=", r["n"], " s=", r["s"]))
	}
	sort.Strings(got)
	want := []string{"a 10:00:01-10:00:10 n=3 s=7", "b 10:00:30-10:00:35 n=1 s=8"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sessions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
