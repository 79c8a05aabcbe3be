package emulator_test

// Event Schema Sets and schema mode (fabric-docs, "Schema Registry - known
// limitations",
// https://learn.microsoft.com/fabric/real-time-intelligence/schema-sets/schema-registry-limitations;
// the item type in fabric-rest-api-specs eventSchemaSet/): events that do
// not conform to the source's registered schema are dropped and logged,
// not dead-lettered; the nodes schema mode does not take, and a change of
// mode after creation, are refused by name.

import (
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hamba/avro/v2"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/kustofake"
)

// schemaSetDefinition is an EventSchemaSetV1.json part holding schema
// "Sensor" at version 1 (sensorSchema).
func schemaSetDefinition() map[string]any {
	body := `{"schemas":[{"name":"Sensor","versions":[{"version":1,"schema":` + sensorSchema + `}]}]}`
	return map[string]any{"parts": []any{map[string]any{"path": "EventSchemaSetV1.json", "payload": base64.StdEncoding.EncodeToString([]byte(body)), "payloadType": "InlineBase64"}}}
}

// schemaTopology: a CustomEndpoint source with schema Sensor of set, into
// the DefaultStream, read by a custom endpoint and an Eventhouse in push
// (ProcessedIngestion) mode, table Sensors.
func schemaTopology(ws, set, eh string, dest map[string]any) map[string]any {
	in := func(name string) []any { return []any{map[string]any{"name": name}} }
	if dest == nil {
		dest = map[string]any{"name": "house", "type": "Eventhouse", "inputNodes": in("main"), "properties": map[string]any{
			"dataIngestionMode": "ProcessedIngestion", "workspaceId": ws, "itemId": eh, "databaseName": "telemetry", "tableName": "Sensors"}}
	}
	return map[string]any{
		"sources": []any{map[string]any{"name": "app", "type": "CustomEndpoint", "properties": map[string]any{
			"eventSchema": map[string]any{"eventSchemaSetId": set, "schemaName": "Sensor", "version": 1}}}},
		"streams": []any{map[string]any{"name": "main", "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": in("app")}},
		"destinations": []any{
			map[string]any{"name": "out", "type": "CustomEndpoint", "properties": map[string]any{}, "inputNodes": in("main")},
			dest,
		},
	}
}

// TestSchemaModeDropsAndLogsNonConformingEvents: events in the registered
// schema (a fastavro binary datum, a Go single-object datum, a container
// file of that schema) reach the Eventhouse with their values; a JSON
// event, a container of another schema and a truncated datum are dropped,
// counted and logged.
func TestSchemaModeDropsAndLogsNonConformingEvents(t *testing.T) {
	k := kustofake.Start(t)
	e := startEnv(t, emulator.WithKQLURL(k.URL()))
	s, eh, _ := eventhouseStream(t, e)
	set := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventSchemaSets", map[string]any{"displayName": "schemas", "definition": schemaSetDefinition()})).str("id")
	es := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams", map[string]any{"displayName": "sm", "definition": definitionOf(schemaTopology(s.ws, set, eh, nil), nil)}))
	base := "/v1/workspaces/" + s.ws + "/eventstreams/" + es.str("id")
	tp := e.must(200, e.call("GET", base+"/topology", nil)).Body
	src := nodesByName(tp, "sources")["app"]["id"].(string)
	house := nodesByName(tp, "destinations")["house"]["id"].(string)

	datum := fastavroWrite(t, sensorSchema, "datum", `{"id":21,"temp":1.5,"city":"a","at":1700000000000}`)[0]
	sc := avro.MustParse(sensorSchema)
	bin, err := avro.Marshal(sc, map[string]any{"id": int64(22), "temp": 2.5, "city": nil, "at": int64(1_700_000_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	fp, _ := sc.FingerprintUsing(avro.CRC64AvroLE)
	single := append(append([]byte{0xC3, 0x01}, fp...), bin...)
	other := containerOfSchema(t, `{"type":"record","name":"Other","fields":[{"name":"id","type":"long"}]}`, map[string]any{"id": int64(99)})
	values := [][]byte{datum, single, sensorFile(t, 23), []byte(`{"id":24}`), other, datum[:len(datum)-2]}
	evs := make([]string, len(values))
	for i, v := range values {
		evs[i] = fmt.Sprintf(`{"valueBase64":%q}`, base64.StdEncoding.EncodeToString(v))
	}
	e.must(200, e.call("POST", base+"/sources/"+src+"/events", `{"events":[`+strings.Join(evs, ",")+`]}`))

	var ids []string
	for _, r := range kustoRows(t, k.URL(), "telemetry", "Sensors") {
		ids = append(ids, fmt.Sprint(r["id"]))
	}
	sort.Strings(ids)
	if strings.Join(ids, ",") != "21,22,23" {
		t.Fatalf("Eventhouse rows with ids %v; want the conforming 21, 22, 23", ids)
	}
	m := decodeAs[nodeMetrics](t, e.must(200, e.call("GET", base+"/destinations/"+house+"/metrics", nil)))
	wantMetrics(t, m, map[string]int64{"InputEvents": 6, "OutputEvents": 3, "DeserializationErrors": 3})
	r := e.must(200, e.call("GET", base+"/destinations/"+house+"/logs?keyword=registered%20schema", nil))
	if n := strings.Count(string(r.Raw), "does not conform to the registered schema"); n != 3 {
		t.Fatalf("%d runtime log entries on non-conforming events, want 3: %s", n, r.Raw)
	}
}

// TestSchemaModeRefusals: a Lakehouse in schema mode, a source without a
// schema beside one with, and a change of mode after creation are refused
// with EventstreamSchemaModeNotSupported; a schema the set lacks with
// InvalidInput naming the field.
func TestSchemaModeRefusals(t *testing.T) {
	k := kustofake.Start(t)
	e := startEnv(t, emulator.WithKQLURL(k.URL()))
	s, eh, _ := eventhouseStream(t, e)
	set := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventSchemaSets", map[string]any{"displayName": "schemas", "definition": schemaSetDefinition()})).str("id")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/lakehouses", map[string]any{"displayName": "lh"})).str("id")
	create := func(name string, topo map[string]any) resp {
		return e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams", map[string]any{"displayName": name, "definition": definitionOf(topo, nil)})
	}
	lake := map[string]any{"name": "lake", "type": "Lakehouse", "inputNodes": []any{map[string]any{"name": "main"}}, "properties": map[string]any{"workspaceId": s.ws, "itemId": lh, "deltaTable": "t", "minimumRows": 1}}
	r := create("lake", schemaTopology(s.ws, set, eh, lake))
	e.wantError(r, 400, "EventstreamSchemaModeNotSupported")
	if !strings.Contains(string(r.Raw), `destination \"lake\" (Lakehouse) in schema mode`) {
		t.Fatalf("refusal does not name the node: %s", r.Raw)
	}

	mixed := schemaTopology(s.ws, set, eh, nil)
	mixed["sources"] = append(mixed["sources"].([]any), map[string]any{"name": "plain", "type": "CustomEndpoint", "properties": map[string]any{}})
	mixed["streams"].([]any)[0].(map[string]any)["inputNodes"] = []any{map[string]any{"name": "app"}, map[string]any{"name": "plain"}}
	e.wantError(create("mixed", mixed), 400, "EventstreamSchemaModeNotSupported")

	missing := schemaTopology(s.ws, set, eh, nil)
	missing["sources"].([]any)[0].(map[string]any)["properties"].(map[string]any)["eventSchema"].(map[string]any)["schemaName"] = "Nope"
	r = create("missing", missing)
	e.wantError(r, 400, "InvalidInput")
	if !strings.Contains(string(r.Raw), `the set has no schema \"Nope\"`) {
		t.Fatalf("refusal does not say the schema is missing: %s", r.Raw)
	}

	es := e.must(201, create("ok", schemaTopology(s.ws, set, eh, nil))).str("id")
	plain := schemaTopology(s.ws, set, eh, nil)
	delete(plain["sources"].([]any)[0].(map[string]any)["properties"].(map[string]any), "eventSchema")
	r = e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+es+"/updateDefinition", map[string]any{"definition": definitionOf(plain, nil)})
	e.wantError(r, 400, "EventstreamSchemaModeNotSupported")
	if !strings.Contains(string(r.Raw), "chosen when the Eventstream is created") {
		t.Fatalf("refusal does not give the rule: %s", r.Raw)
	}
}

// containerOfSchema is a container file of data in schema, by the Go writer.
func containerOfSchema(t *testing.T, schema string, data ...map[string]any) []byte {
	t.Helper()
	var buf strings.Builder
	enc, err := ocfEncoder(schema, &buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range data {
		if err := enc.Encode(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return []byte(buf.String())
}
