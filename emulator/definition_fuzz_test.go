package emulator_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDefinition feeds arbitrary bytes as eventstream.json to
// updateDefinition: the mapping of Fabric's definition onto the emulator's
// model must answer 200 or a 4xx in Fabric's envelope, never panic and
// never answer 5xx (issue 13).
func FuzzDefinition(f *testing.F) {
	e := startEnv(f)
	s := newStream(e)
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/lakehouses", map[string]any{"displayName": "lh_fuzz"})).str("id")
	path := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/updateDefinition"

	// Seeds: Microsoft's template whole, the parts the emulator runs,
	// and hostile shapes.
	if raw, err := os.ReadFile(filepath.Join("..", "..", "shared", "fabric-event-streams-template", "eventstream-definition.json")); err == nil {
		f.Add(raw)
	}
	f.Add(fuzzTopology(s.ws, lh))
	for _, seed := range []string{
		``, `null`, `[]`, `{}`, `"x"`, `{"sources":null}`, `{"sources":{}}`,
		`{"sources":[null],"streams":[1],"operators":["x"],"destinations":[[]]}`,
		`{"sources":[{"name":"a","type":"CustomEndpoint"}],"streams":[{"name":"s","type":"DefaultStream","inputNodes":[{"name":"a"},{"name":"a"}]}]}`,
		`{"streams":[{"name":"s","type":"DerivedStream","inputNodes":[{"name":"s"}]}]}`,
		`{"operators":[{"name":"o","type":"ManageFields","inputNodes":[{"name":"o"}],"properties":{"columns":[{"type":"FunctionCall","properties":{"functionName":"Replace","arguments":[]}}]}}]}`,
		`{"operators":[{"name":"o","type":"Filter","properties":{"conditions":[{"column":{"expressionType":"ColumnReference"},"operatorType":"Equals","value":{"value":1e400}}]}}]}`,
		`{"operators":[{"name":"o","type":"GroupBy","properties":{"aggregations":[{"aggregateFunction":"Average"}],"window":{"type":"Tumbling","properties":{"duration":-1,"durationUnit":"Second"}}}}]}`,
		strings.Repeat(`{"sources":[`, 300) + strings.Repeat("]}", 300),
		strings.Repeat("[", 100_000),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, topo []byte) {
		e := *e
		e.t = t
		def := map[string]any{"parts": []any{
			map[string]any{"path": "eventstream.json", "payload": base64.StdEncoding.EncodeToString(topo), "payloadType": "InlineBase64"},
		}}
		r := e.call("POST", path, map[string]any{"definition": def})
		switch {
		case r.Status == 200, r.Status == 202:
		case r.Status >= 400 && r.Status < 500:
			if r.code() == "" || r.str("message") == "" {
				t.Fatalf("%d without Fabric's envelope: %s", r.Status, r.Raw)
			}
		default:
			t.Fatalf("answer %d for eventstream.json %q: %s", r.Status, topo, r.Raw)
		}
	})
}

// fuzzTopology is a definition the emulator runs: a CustomEndpoint source,
// the DefaultStream, a Filter, a ManageFields with every function, and a
// Lakehouse destination.
func fuzzTopology(ws, lh string) []byte {
	col := func(name string) map[string]any {
		return map[string]any{"expressionType": "ColumnReference", "node": nil, "columnName": name}
	}
	lit := func(v any) map[string]any {
		return map[string]any{"expressionType": "Literal", "dataType": "Nvarchar(max)", "value": v}
	}
	fn := func(name, alias string, args ...any) map[string]any {
		return map[string]any{"type": "FunctionCall", "alias": alias,
			"properties": map[string]any{"functionName": name, "arguments": args}}
	}
	topo := map[string]any{
		"compatibilityLevel": "1.1",
		"sources":            []any{map[string]any{"name": "src", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{map[string]any{"name": "es-stream", "type": "DefaultStream", "properties": map[string]any{},
			"inputNodes": []any{map[string]any{"name": "src"}}}},
		"operators": []any{
			map[string]any{"name": "filter", "type": "Filter", "inputNodes": []any{map[string]any{"name": "es-stream"}},
				"properties": map[string]any{"conditions": []any{map[string]any{"column": col("s"), "operatorType": "NotEquals", "value": lit("0")}}}},
			map[string]any{"name": "fields", "type": "ManageFields", "inputNodes": []any{map[string]any{"name": "filter"}},
				"properties": map[string]any{"columns": []any{
					fn("Replace", "r", col("s"), lit("a"), col("t")),
					fn("Concat", "c", col("s"), col("t")),
					fn("Upper", "u", col("s")),
				}}},
		},
		"destinations": []any{map[string]any{"name": "lake", "type": "Lakehouse", "inputNodes": []any{map[string]any{"name": "fields"}},
			"properties": map[string]any{"workspaceId": ws, "itemId": lh, "schema": "", "deltaTable": "fuzzed",
				"inputSerialization": map[string]any{"type": "Json", "properties": map[string]any{"encoding": "UTF8"}}}}},
	}
	raw, _ := json.Marshal(topo)
	return raw
}
