package emulator_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-kusto-go/azkustodata/kql"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/eventhouse"
	"github.com/fabrictest/fabrictest/kustofake"
)

// The Eventhouse destination's two modes, against the kustofake stand-in
// (the engine the other Eventhouse tests use; no Kusto engine runs here).
// Microsoft's documents: fabric-docs add-destination-kql-database.md
// ("Direct ingestion" ingests "without any processing" from the default or
// a derived stream; "Event processing before ingestion" follows
// operators), api-kusto-pull-destination.md (the API-only DirectIngestion
// definition: kqlDatabaseId, tableName, connectionName, mappingRuleName)
// and fabric-rest-api-specs eventstream/examples/GetEventstreamTopology.json
// (both modes as topology nodes).

// kustoTemps sorts the "temp" column of rows.
func kustoTemps(rows []map[string]any) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint(r["temp"]))
	}
	slices.Sort(out)
	return out
}

// modesTopology: the DefaultStream "main", a Filter keeping temp > 20, a
// ProcessedIngestion destination after it (table Warm) and a
// DirectIngestion destination on the DefaultStream (table Raw).
func modesTopology(ws, eh, dbID string) map[string]any {
	in := func(name string) []any { return []any{map[string]any{"name": name}} }
	return map[string]any{
		"sources": []any{map[string]any{"name": "app", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{map[string]any{"name": "main", "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": in("app")}},
		"operators": []any{map[string]any{"name": "warm", "type": "Filter", "inputNodes": in("main"), "properties": map[string]any{"conditions": []any{
			map[string]any{"column": map[string]any{"columnName": "temp"}, "operatorType": "GreaterThan", "value": map[string]any{"dataType": "BigInt", "value": "20"}},
		}}}},
		"destinations": []any{
			map[string]any{"name": "processed", "type": "Eventhouse", "inputNodes": in("warm"), "properties": map[string]any{
				"dataIngestionMode": "ProcessedIngestion", "workspaceId": ws, "itemId": eh, "databaseName": "telemetry", "tableName": "Warm",
				"inputSerialization": map[string]any{"type": "Json", "properties": map[string]any{"encoding": "UTF8"}}}},
			map[string]any{"name": "direct", "type": "Eventhouse", "inputNodes": in("main"), "properties": map[string]any{
				"dataIngestionMode": "DirectIngestion", "workspaceId": ws, "itemId": eh, "kqlDatabaseId": dbID, "tableName": "Raw",
				"connectionName": "eventhouse-conn-7f3a", "mappingRuleName": "raw_json_map"}},
		},
	}
}

// TestEventhouseModesFromDefinition: the ProcessedIngestion destination
// ingests what the Filter keeps, the DirectIngestion one every event of the
// stream; the topology shows each mode with its own properties.
func TestEventhouseModesFromDefinition(t *testing.T) {
	k := kustofake.Start(t)
	e := startEnv(t, emulator.WithKQLURL(k.URL()))
	s, eh, dbID := eventhouseStream(t, e)
	es := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams", map[string]any{"displayName": "modes", "definition": definitionOf(modesTopology(s.ws, eh, dbID), nil)}))
	base := "/v1/workspaces/" + s.ws + "/eventstreams/" + es.str("id")
	tp := e.must(200, e.call("GET", base+"/topology", nil)).Body
	src := nodesByName(tp, "sources")["app"]["id"].(string)
	e.must(200, e.call("POST", base+"/sources/"+src+"/events", `{"events":[{"value":{"temp":10}},{"value":{"temp":25}},{"value":{"temp":30}}]}`))

	if got := kustoTemps(kustoRows(t, k.URL(), "telemetry", "Warm")); !slices.Equal(got, []string{"25", "30"}) {
		t.Fatalf("ProcessedIngestion table Warm has temps %v, want the Filter's 25 and 30", got)
	}
	if got := kustoTemps(kustoRows(t, k.URL(), "telemetry", "Raw")); !slices.Equal(got, []string{"10", "25", "30"}) {
		t.Fatalf("DirectIngestion table Raw has temps %v, want every event of the stream", got)
	}

	dests := nodesByName(tp, "destinations")
	direct, processed := dests["direct"], dests["processed"]
	dp, pp := direct["properties"].(map[string]any), processed["properties"].(map[string]any)
	if dp["dataIngestionMode"] != "DirectIngestion" || dp["mappingRuleName"] != "raw_json_map" || dp["connectionName"] != "eventhouse-conn-7f3a" || direct["inputNodes"].([]any)[0].(map[string]any)["name"] != "main" {
		t.Fatalf("DirectIngestion node %v", direct)
	}
	if pp["dataIngestionMode"] != "ProcessedIngestion" || pp["tableName"] != "Warm" || direct["status"] != "Running" || processed["status"] != "Running" {
		t.Fatalf("ProcessedIngestion node %v", processed)
	}
}

// TestEventhouseModesNative: a native binding takes ingestionMode; a
// DirectIngestion binding ignores the Eventstream's native operators and
// its topology node reads the DefaultStream; a bad mode, or a mode on a
// Lakehouse binding, is refused naming the field.
func TestEventhouseModesNative(t *testing.T) {
	k := kustofake.Start(t)
	e := startEnv(t, emulator.WithKQLURL(k.URL()))
	s, eh, _ := eventhouseStream(t, e)
	base := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id
	e.must(200, e.call("POST", base+"/operators", `[{"type":"Filter","condition":{"field":"temp","op":"gt","value":20}}]`))
	bad := e.call("POST", base+"/destinations", map[string]any{"type": "Eventhouse", "itemId": eh, "table": "X", "ingestionMode": "Pull"})
	e.wantError(bad, 400, "InvalidInput")
	if !strings.Contains(string(bad.Raw), "ingestionMode") {
		t.Fatalf("refusal does not name ingestionMode: %s", bad.Raw)
	}
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/lakehouses", map[string]any{"displayName": "lh"})).str("id")
	e.wantError(e.call("POST", base+"/destinations", map[string]any{"type": "Lakehouse", "itemId": lh, "table": "t", "ingestionMode": "DirectIngestion"}), 400, "InvalidInput")

	d := e.must(201, e.call("POST", base+"/destinations", map[string]any{"type": "Eventhouse", "itemId": eh, "table": "Raw", "ingestionMode": "DirectIngestion"}))
	p := e.must(201, e.call("POST", base+"/destinations", map[string]any{"type": "Eventhouse", "itemId": eh, "table": "Warm"}))
	if d.str("ingestionMode") != "DirectIngestion" || p.str("ingestionMode") != "ProcessedIngestion" {
		t.Fatalf("bindings answer %s and %s", d.Raw, p.Raw)
	}
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"temp":10}},{"value":{"temp":25}}]}`))
	if got := kustoTemps(kustoRows(t, k.URL(), "telemetry", "Raw")); !slices.Equal(got, []string{"10", "25"}) {
		t.Fatalf("DirectIngestion table Raw has temps %v, want both events", got)
	}
	if got := kustoTemps(kustoRows(t, k.URL(), "telemetry", "Warm")); !slices.Equal(got, []string{"25"}) {
		t.Fatalf("ProcessedIngestion table Warm has temps %v, want the operator's 25", got)
	}
	tp := e.must(200, e.call("GET", base+"/topology", nil)).Body
	for _, n := range tp["destinations"].([]any) {
		n := n.(map[string]any)
		props := n["properties"].(map[string]any)
		input := n["inputNodes"].([]any)[0].(map[string]any)["name"]
		switch props["tableName"] {
		case "Raw":
			if props["dataIngestionMode"] != "DirectIngestion" || input != "es-stream" {
				t.Fatalf("DirectIngestion node %v", n)
			}
		case "Warm":
			if props["dataIngestionMode"] != "ProcessedIngestion" || input == "es-stream" {
				t.Fatalf("ProcessedIngestion node %v", n)
			}
		}
	}
	// Re-binding the same table in the other mode switches it.
	again := e.must(200, e.call("POST", base+"/destinations", map[string]any{"type": "Eventhouse", "itemId": eh, "table": "Raw"}))
	if again.str("id") != d.str("id") || again.str("ingestionMode") != "ProcessedIngestion" {
		t.Fatalf("re-bind: %s", again.Raw)
	}
}

// TestEventhouseDirectIngestionKeepsTable follows Microsoft's API-only
// DirectIngestion flow (api-kusto-pull-destination.md): the table exists
// before the Eventstream, and the Eventhouse ingests into it through its
// mapping, which adds no column (learn.microsoft.com/kusto/management/mappings).
// A field the table lacks is not written; a missing one is null.
func TestEventhouseDirectIngestionKeepsTable(t *testing.T) {
	k := kustofake.Start(t)
	e := startEnv(t, emulator.WithKQLURL(k.URL()))
	s, eh, dbID := eventhouseStream(t, e)
	c, err := eventhouse.New(k.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Kusto().Mgmt(context.Background(), "telemetry", kql.New(".create table Orders (id:string, eventTime:datetime, amount:real)")); err != nil {
		t.Fatal(err)
	}
	topo := modesTopology(s.ws, eh, dbID)
	dests := topo["destinations"].([]any)
	direct := dests[1].(map[string]any)
	direct["properties"].(map[string]any)["tableName"] = "Orders"
	topo["destinations"], topo["operators"] = []any{direct}, []any{}
	es := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams", map[string]any{"displayName": "orders", "definition": definitionOf(topo, nil)}))
	base := "/v1/workspaces/" + s.ws + "/eventstreams/" + es.str("id")
	src := nodesByName(e.must(200, e.call("GET", base+"/topology", nil)).Body, "sources")["app"]["id"].(string)
	e.must(200, e.call("POST", base+"/sources/"+src+"/events", `{"events":[{"value":{"id":"o1","amount":2.5,"coupon":"X1"}}]}`))

	got := kustoRows(t, k.URL(), "telemetry", "Orders")
	want := []map[string]any{{"id": "o1", "eventTime": nil, "amount": 2.5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Orders rows %v, want %v (no coupon column)", got, want)
	}
}
