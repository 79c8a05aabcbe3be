package emulator_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/fabrictest"
)

func TestOperatorsRoutes(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	ops := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/operators"
	if got := e.must(200, e.call("GET", ops, nil)); len(got.Body["operators"].([]any)) != 0 {
		t.Fatalf("new eventstream has operators: %s", got.Raw)
	}
	set := e.must(200, e.call("POST", ops, `[{"type":"Filter","condition":{"field":"temp","op":"gt","value":20}}]`))
	if len(set.Body["operators"].([]any)) != 1 {
		t.Fatalf("set answered %s", set.Raw)
	}
	for _, tc := range []struct{ body, code, names string }{
		{`[{"type":"Join","with":"x"}]`, "InvalidInput", "operators[0].with"},
		{`[{"type":"GroupBy","keys":["a"],"aggregates":[{"fn":"count"}],"window":{"kind":"session","duration":"1m"}}]`, "InvalidInput", "operators[0].window.timeout"},
		{`[{"type":"SQL","query":"SELECT 1"}]`, "EventstreamOperatorNotSupported", "SQL"},
		{`[{"type":"Union"}]`, "InvalidInput", "operators[0].inputs"},
		{`[{"type":"Filter","condition":{"field":"a","op":"bigger","value":1}}]`, "InvalidInput", "operators[0].condition.op"},
		{`[{"type":"GroupBy","keys":["a"],"aggregates":[{"fn":"median","field":"x"}],"window":{"kind":"tumbling","duration":"1m"}}]`, "", "operators[0].aggregates[0].fn"},
		{`[{"type":"Filter"`, "InvalidRequest", ""},
	} {
		r := e.call("POST", ops, tc.body)
		if r.Status != 400 || (tc.code != "" && r.code() != tc.code) || !strings.Contains(string(r.Raw), tc.names) {
			t.Errorf("%s: %d %s", tc.body, r.Status, r.Raw)
		}
	}
	// A refused chain changed nothing.
	if got := e.must(200, e.call("GET", ops, nil)); len(got.Body["operators"].([]any)) != 1 {
		t.Fatalf("refusals changed the chain: %s", got.Raw)
	}
	e.must(200, e.call("DELETE", ops, nil))
	if got := e.must(200, e.call("GET", ops, nil)); len(got.Body["operators"].([]any)) != 0 {
		t.Fatalf("delete left %s", got.Raw)
	}
}

func TestFilterAndManageFieldsIntoLakehouse(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	e.must(200, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/operators", `[
		{"type":"Filter","condition":{"and":[{"field":"temp","op":"gt","value":20},{"field":"site","op":"ne","value":"lab"}]}},
		{"type":"ManageFields","drop":["debug"],"rename":{"temp":"temperature"},"cast":{"temp":"double"}}
	]`))
	l := bindLakehouse(t, s, "warm")
	e.must(200, e.call("POST", s.produce, `{"events":[
		{"value":{"site":"a","temp":25,"debug":"x"}},
		{"value":{"site":"a","temp":15}},
		{"value":{"site":"lab","temp":30}},
		{"value":{"site":"b","temp":"hot"}},
		{"value":{"site":"b","temp":21.5}},
		{"value":"not json"}
	]}`))
	snap := readTable(t, l.dir)
	got := []string{}
	for _, r := range snap.Rows {
		if _, ok := r["debug"]; ok {
			t.Fatalf("dropped field delivered: %v", r)
		}
		got = append(got, fmt.Sprint(r["site"], "=", r["temperature"]))
	}
	sort.Strings(got)
	if strings.Join(got, ",") != "a=25,b=21.5" {
		t.Fatalf("rows %v", got)
	}
	// Kafka keeps the raw events.
	if recs, _ := s.consume(""); len(recs) != 6 {
		t.Fatalf("topic has %d records, want the 6 raw events", len(recs))
	}
}

func TestGroupByTumblingIntoLakehouseSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	// One partition: with several, the event-time watermark is the slowest
	// partition's, and keyless events spread over partitions.
	e := startEnv(t, emulator.WithDataDir(dir), emulator.WithPartitions(1))
	s := newStream(e)
	e.must(200, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/operators", `[
		{"type":"GroupBy","keys":["device"],"aggregates":[{"fn":"count","as":"n"},{"fn":"sum","field":"v"},{"fn":"avg","field":"v"}],
		 "window":{"kind":"tumbling","duration":"1m","on":"ts"}}
	]`))
	l := bindLakehouse(t, s, "per_minute")
	ev := func(dev string, sec, v int) string {
		return fmt.Sprintf(`{"value":{"device":%q,"ts":"2026-11-29T10:%02d:%02dZ","v":%d}}`, dev, sec/60, sec%60, v)
	}
	// Window 10:00 gets 3 events, then a restart in the middle of window 10:01.
	e.must(200, e.call("POST", s.produce, `{"events":[`+ev("a", 1, 1)+`,`+ev("b", 5, 10)+`,`+ev("a", 59, 3)+`,`+ev("a", 61, 5)+`]}`))
	snap := readTable(t, l.dir)
	if len(snap.Rows) != 2 {
		t.Fatalf("after the first minute closed: %d rows %v", len(snap.Rows), snap.Rows)
	}
	e.srv.Close()
	e2 := startEnv(t, emulator.WithDataDir(dir), emulator.WithPartitions(1))
	s.e = e2
	e2.must(200, e2.call("POST", s.produce, `{"events":[`+ev("a", 70, 7)+`,`+ev("a", 125, 1)+`]}`))
	snap = readTable(t, l.dir)
	got := []string{}
	for _, r := range snap.Rows {
		got = append(got, fmt.Sprint(r["window_start"].(time.Time).Format(time.RFC3339), " ", r["device"], " n=", r["n"], " sum=", r["sum_v"], " avg=", r["avg_v"]))
	}
	sort.Strings(got)
	want := []string{
		"2026-11-29T10:00:00Z a n=2 sum=4 avg=2",
		"2026-11-29T10:00:00Z b n=1 sum=10 avg=10",
		"2026-11-29T10:01:00Z a n=2 sum=12 avg=6",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("windows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestArrivalTimeWindowClosesByWallClock(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	e.must(200, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/operators",
		`{"type":"GroupBy","keys":[],"aggregates":[{"fn":"count","as":"n"}],"window":{"kind":"tumbling","duration":"1s"}}`))
	l := bindLakehouse(t, s, "per_second")
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":1},{"value":2},{"value":3}]}`))
	deadline := time.Now().Add(10 * time.Second)
	for {
		if snap, err := readTableMaybe(l.dir); err == nil && len(snap.Rows) > 0 {
			total := 0
			for _, r := range snap.Rows {
				n := 0
				fmt.Sscan(fmt.Sprint(r["n"]), &n)
				total += n
			}
			if total == 3 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the last window was never emitted by the wall clock")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestTriggerCondition(t *testing.T) {
	e := startEnv(t)
	s, reflex, nb, trig := reflexSetup(t, e)
	base := "/v1/workspaces/" + s.ws + "/reflexes/" + reflex + "/triggers/" + trig
	e.wantError(e.call("PATCH", base, map[string]any{"condition": map[string]any{"field": "t", "op": "warmer", "value": 1}}), 400, "InvalidInput")
	e.must(200, e.call("PATCH", base, map[string]any{"condition": map[string]any{"field": "temp", "op": "gte", "value": 30}}))
	e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/destinations", map[string]any{"type": "Reflex", "itemId": reflex}))
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"temp":10}},{"value":{"temp":30}},{"value":{"temp":45}},{"value":{"temp":"hot"}}]}`))
	jobs := listOf[fabrictest.JobInstance](t, e.must(200, e.call("GET", "/v1/workspaces/"+s.ws+"/items/"+nb+"/jobs/instances", nil)))
	if len(jobs) != 2 {
		t.Fatalf("%d jobs, want 2 (temp 30 and 45)", len(jobs))
	}
}
