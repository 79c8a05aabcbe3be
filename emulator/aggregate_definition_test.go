package emulator_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// rollingTopology is CustomEndpoint → DefaultStream → Aggregate → Lakehouse,
// the Aggregate node written as Fabric writes one (both function
// spellings, column references with and without path segments).
func rollingTopology(ws, lh string, aggs []any) map[string]any {
	return map[string]any{
		"compatibilityLevel": "1.1",
		"sources":            []any{map[string]any{"name": "meters", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{map[string]any{"name": "meters-stream", "type": "DefaultStream", "properties": map[string]any{},
			"inputNodes": []any{map[string]any{"name": "meters"}}}},
		"operators": []any{map[string]any{"name": "Rolling", "type": "Aggregate",
			"inputNodes": []any{map[string]any{"name": "meters-stream"}}, "properties": map[string]any{"aggregations": aggs}}},
		"destinations": []any{map[string]any{"name": "lake", "type": "Lakehouse",
			"inputNodes": []any{map[string]any{"name": "Rolling"}},
			"properties": map[string]any{"workspaceId": ws, "itemId": lh, "schema": "dbo", "deltaTable": "rolling",
				"minimumRows": 100000, "maximumDurationInSeconds": 120,
				"inputSerialization": map[string]any{"type": "Json", "properties": map[string]any{"encoding": "UTF8"}}}}},
	}
}

func TestAggregateDefinitionRollsPerEvent(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("rolling")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "rolling_lh"}))
	tables := lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	site := []any{map[string]any{"node": nil, "columnName": "site", "expressionType": "ColumnReference"}}
	dur := func(v int, unit string) map[string]any { return map[string]any{"value": v, "unit": unit} }
	aggs := []any{
		// The template's spelling; no alias: the column is AVG_temp.
		map[string]any{"aggregateFunction": "Average", "column": map[string]any{"node": nil, "columnName": "temp"}, "partitionBy": site, "duration": dur(10, "Second")},
		map[string]any{"aggregationFunction": "Sum", "column": map[string]any{"columnName": "reading", "columnPathSegments": []any{"kwh"}}, "alias": "kwh_30s", "duration": dur(30, "Second")},
		map[string]any{"aggregationFunction": "Maximum", "column": map[string]any{"columnName": "temp"}, "alias": "max_temp", "partitionBy": site, "duration": dur(1, "Minute")},
		map[string]any{"aggregationFunction": "Count", "column": map[string]any{"columnName": "temp"}, "alias": "n", "partitionBy": site, "duration": dur(10, "Second")},
	}
	es := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "rolling",
		"definition": definitionOf(rollingTopology(ws, lh.str("id"), aggs), nil)}))
	base := "/v1/workspaces/" + ws + "/eventstreams/" + es.str("id")
	src := nodesByName(e.must(200, e.call("GET", base+"/topology", nil)).Body, "sources")["meters"]["id"].(string)

	// One key, so one partition; record timestamps set, since Fabric's
	// Aggregate runs on arrival time.
	var evs []string
	for _, ev := range []struct {
		id, sec int
		site    string
		temp    string
		kwh     int
	}{
		{1, 0, "oslo", `"temp":10,`, 1},
		{2, 4, "rome", `"temp":20,`, 2},
		{3, 8, "oslo", `"temp":14,`, 3},
		{4, 12, "oslo", `"temp":30,`, 4},
		{5, 15, "rome", `"temp":22,`, 5},
		{6, 40, "oslo", `"temp":8,`, 6},
		{7, 41, "oslo", ``, 7}, // no temp: passes, counts in no temp aggregate
	} {
		evs = append(evs, fmt.Sprintf(`{"key":"m","timestamp":"2026-03-01T10:00:%02dZ","value":{"id":%d,"site":%q,%s"reading":{"kwh":%d}}}`,
			ev.sec, ev.id, ev.site, ev.temp, ev.kwh))
	}
	e.must(200, e.call("POST", base+"/sources/"+src+"/events", `{"events":[`+strings.Join(evs, ",")+`]}`))

	// The definition's batching holds the rows until 120 s of emulator clock (batching_test.go).
	e.advance(120)
	snap := readTable(t, filepath.Join(tables, "rolling"))
	var got []string
	for _, r := range snap.Rows {
		got = append(got, fmt.Sprintf("%v %v temp=%v AVG_temp=%v kwh_30s=%v max_temp=%v n=%v",
			r["id"], r["site"], r["temp"], r["AVG_temp"], r["kwh_30s"], r["max_temp"], r["n"]))
	}
	sort.Strings(got)
	want := []string{
		// oslo: avg and count over (t-10s, t], max over (t-1m, t]; all sites: kWh over (t-30s, t].
		"1 oslo temp=10 AVG_temp=10 kwh_30s=1 max_temp=10 n=1",
		"2 rome temp=20 AVG_temp=20 kwh_30s=3 max_temp=20 n=1",
		"3 oslo temp=14 AVG_temp=12 kwh_30s=6 max_temp=14 n=2",
		"4 oslo temp=30 AVG_temp=22 kwh_30s=10 max_temp=30 n=2",   // 10 at 0s is 12s back
		"5 rome temp=22 AVG_temp=22 kwh_30s=15 max_temp=22 n=1",   // 20 at 4s is 11s back
		"6 oslo temp=8 AVG_temp=8 kwh_30s=15 max_temp=30 n=1",     // kWh of 12s, 15s, 40s
		"7 oslo temp=<nil> AVG_temp=8 kwh_30s=22 max_temp=30 n=1", // 8 at 40s still in
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	types := columnTypes(snap)
	if types["AVG_temp"] != "double" || types["kwh_30s"] != "long" || types["n"] != "long" {
		t.Fatalf("column types %v", types)
	}

	// The operator is stored in canonical form, and round-trips through
	// getDefinition as Fabric wrote it.
	ops := e.must(200, e.call("GET", base+"/operators", nil)).Body["operators"].([]any)
	if len(ops) != 1 || ops[0].(map[string]any)["type"] != "Aggregate" {
		t.Fatalf("operators %v", ops)
	}
	if a := ops[0].(map[string]any)["aggregates"].([]any)[1].(map[string]any); a["field"] != "reading.kwh" || a["duration"] != "30s" || a["as"] != "kwh_30s" {
		t.Fatalf("canonical aggregate %v", a)
	}
	def := parts(t, e.must(200, e.call("POST", base+"/getDefinition", nil)))["eventstream.json"]
	if op := nodesByName(def, "operators")["Rolling"]; op["type"] != "Aggregate" || len(op["properties"].(map[string]any)["aggregations"].([]any)) != 4 {
		t.Fatalf("getDefinition operator %v", op)
	}
}

func TestAggregateDefinitionRefusals(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("rolling-bad")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"})).str("id")
	col := map[string]any{"columnName": "v"}
	dur := map[string]any{"value": 1, "unit": "Minute"}
	for _, tc := range []struct {
		name, code, mention string
		agg                 any
	}{
		{"deviation", "EventstreamNodeNotSupported", "StandardDeviation",
			map[string]any{"aggregationFunction": "StandardDeviation", "column": col, "duration": dur}},
		{"percentile", "EventstreamNodeNotSupported", "PercentileContinuous",
			map[string]any{"aggregateFunction": "PercentileContinuous", "column": col, "duration": dur}},
		{"calendar unit", "EventstreamNodeNotSupported", "Month",
			map[string]any{"aggregationFunction": "Sum", "column": col, "duration": map[string]any{"value": 1, "unit": "Month"}}},
		{"no duration", "InvalidInput", "aggregates[0].duration",
			map[string]any{"aggregationFunction": "Sum", "column": col}},
		{"no function", "InvalidInput", "aggregates[0].fn",
			map[string]any{"column": col, "duration": dur}},
		{"bad partition column", "InvalidInput", "partitionBy[0]",
			map[string]any{"aggregationFunction": "Sum", "column": col, "duration": dur, "partitionBy": []any{map[string]any{"node": nil}}}},
	} {
		r := e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "x",
			"definition": definitionOf(rollingTopology(ws, lh, []any{tc.agg}), nil)})
		e.wantError(r, 400, tc.code)
		if !strings.Contains(string(r.Raw), tc.mention) || !strings.Contains(string(r.Raw), "Rolling") {
			t.Fatalf("%s: the error does not name %q and the node: %s", tc.name, tc.mention, r.Raw)
		}
	}
	if items := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/eventstreams", nil)).Body["value"].([]any); len(items) != 0 {
		t.Fatalf("refused creates left %v", items)
	}
}

// TestAggregateDefinitionTemplateNode deploys the Aggregate node of
// Microsoft's template as it is (aggregateFunction, a partitionBy column
// that names a node, a {value, unit} duration).
func TestAggregateDefinitionTemplateNode(t *testing.T) {
	full := eventstreamTemplate(t)
	var node map[string]any
	for _, n := range full["operators"].([]any) {
		if m := n.(map[string]any); m["name"] == "AggregatorName" {
			node = m
		}
	}
	if node == nil {
		t.Fatal("template has no AggregatorName")
	}
	e := startEnv(t)
	ws := e.workspace("rolling-template")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"})).str("id")
	topo := rollingTopology(ws, lh, nil)
	node["inputNodes"] = []any{map[string]any{"name": "meters-stream"}}
	topo["operators"] = []any{node}
	topo["destinations"].([]any)[0].(map[string]any)["inputNodes"] = []any{map[string]any{"name": "AggregatorName"}}
	es := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "tpl", "definition": definitionOf(topo, nil)}))
	ops := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/eventstreams/"+es.str("id")+"/operators", nil)).Body["operators"].([]any)
	got, _ := json.Marshal(ops)
	if want := `[{"aggregates":[{"as":"AVG_columnName","duration":"1m0s","field":"aggregationColumn","fn":"avg","partitionBy":["partitionByColumn"]}],"name":"AggregatorName","type":"Aggregate"}]`; string(got) != want {
		t.Fatalf("operators %s\nwant %s", got, want)
	}
}
