package emulator_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fieldsManagerNode returns the ManageFields node of Microsoft's template
// (FieldsManagerName: a Rename, a Cast and the FunctionCall CharIndex('aaa',
// deviceId, 1) AS charindex_number) as it is, plus the extra columns,
// reading the stream "devices-stream".
func fieldsManagerNode(t *testing.T, extra ...any) map[string]any {
	t.Helper()
	full := eventstreamTemplate(t)
	for _, n := range full["operators"].([]any) {
		if m := n.(map[string]any); m["name"] == "FieldsManagerName" {
			m["inputNodes"] = []any{map[string]any{"name": "devices-stream"}}
			props := m["properties"].(map[string]any)
			props["columns"] = append(props["columns"].([]any), extra...)
			return m
		}
	}
	t.Fatal("template has no FieldsManagerName")
	return nil
}

// functionTopology is CustomEndpoint → DefaultStream → mf → Lakehouse.
func functionTopology(ws, lh string, mf map[string]any) map[string]any {
	return map[string]any{
		"compatibilityLevel": "1.1",
		"sources":            []any{map[string]any{"name": "devices", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{map[string]any{"name": "devices-stream", "type": "DefaultStream", "properties": map[string]any{},
			"inputNodes": []any{map[string]any{"name": "devices"}}}},
		"operators": []any{mf},
		"destinations": []any{map[string]any{"name": "lake", "type": "Lakehouse",
			"inputNodes": []any{map[string]any{"name": mf["name"]}},
			"properties": map[string]any{"workspaceId": ws, "itemId": lh, "schema": "dbo", "deltaTable": "computed",
				"minimumRows": 100000, "maximumDurationInSeconds": 120,
				"inputSerialization": map[string]any{"type": "Json", "properties": map[string]any{"encoding": "UTF8"}}}}},
	}
}

func functionColumn(fn, alias string, args ...any) map[string]any {
	return map[string]any{"type": "FunctionCall", "alias": alias,
		"properties": map[string]any{"functionName": fn, "arguments": args}}
}

func columnRef(name string, segs ...any) map[string]any {
	return map[string]any{"expressionType": "ColumnReference", "node": nil, "columnName": name, "columnPathSegments": append([]any{}, segs...)}
}

func literalOf(dataType, value string) map[string]any {
	return map[string]any{"expressionType": "Literal", "dataType": dataType, "value": value}
}

func TestFunctionCallDefinitionComputesColumns(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("functions")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "functions_lh"}))
	tables := lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	mf := fieldsManagerNode(t,
		functionColumn("Upper", "device_upper", columnRef("deviceId")),
		functionColumn("Substring", "site_part", columnRef("meta", "site"), literalOf("BigInt", "2"), literalOf("BigInt", "3")),
	)
	es := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "functions",
		"definition": definitionOf(functionTopology(ws, lh.str("id"), mf), nil)}))
	base := "/v1/workspaces/" + ws + "/eventstreams/" + es.str("id")
	src := nodesByName(e.must(200, e.call("GET", base+"/topology", nil)).Body, "sources")["devices"]["id"].(string)

	e.must(200, e.call("POST", base+"/sources/"+src+"/events", `{"events":[
		{"value":{"deviceId":"xaaay","renameColumn":"r1","castColumn":"42","meta":{"site":"oslo-1"},"extra":true}},
		{"value":{"deviceId":"bbb","renameColumn":"r2","castColumn":"7","meta":{"site":"ro"}}},
		{"value":{"deviceId":"ünï-aaa","renameColumn":"r3","castColumn":"8"}},
		{"value":{"deviceId":17,"renameColumn":"r4","castColumn":"x","meta":{"site":5}}}]}`))

	// The definition's batching holds the rows until 120 s of emulator clock (batching_test.go).
	e.advance(120)
	snap := readTable(t, filepath.Join(tables, "computed"))
	var got []string
	for _, r := range snap.Rows {
		for _, unlisted := range []string{"deviceId", "meta", "extra", "renameColumn", "castColumn"} {
			if _, ok := r[unlisted]; ok {
				t.Fatalf("unlisted column %s delivered: %v", unlisted, r)
			}
		}
		got = append(got, fmt.Sprintf("%v cast=%v charindex=%v upper=%v part=%v",
			r["renameAlias"], r["castAlias"], r["charindex_number"], r["device_upper"], r["site_part"]))
	}
	sort.Strings(got)
	want := []string{
		"r1 cast=42 charindex=2 upper=XAAAY part=slo",
		"r2 cast=7 charindex=0 upper=BBB part=o",
		"r3 cast=8 charindex=5 upper=ÜNÏ-AAA part=<nil>",       // code points; no meta.site: null
		"r4 cast=<nil> charindex=<nil> upper=<nil> part=<nil>", // a number where a string is wanted: null
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	types := columnTypes(snap)
	if types["charindex_number"] != "long" || types["device_upper"] != "string" || types["site_part"] != "string" {
		t.Fatalf("column types %v", types)
	}

	// Stored in canonical form: the aliases are kept, so only the listed
	// columns come out; getDefinition gives the node back as written.
	ops := e.must(200, e.call("GET", base+"/operators", nil)).Body["operators"].([]any)
	got1, _ := json.Marshal(ops)
	const wantOps = `[{"cast":{"castColumn":"long"},"compute":[` +
		`{"args":[{"literal":"aaa"},{"field":"deviceId"},{"literal":1}],"as":"charindex_number","fn":"charindex"},` +
		`{"args":[{"field":"deviceId"}],"as":"device_upper","fn":"upper"},` +
		`{"args":[{"field":"meta.site"},{"literal":2},{"literal":3}],"as":"site_part","fn":"substring"}],` +
		`"keep":["renameColumn","castColumn","charindex_number","device_upper","site_part"],"name":"FieldsManagerName",` +
		`"rename":{"castColumn":"castAlias","renameColumn":"renameAlias"},"type":"ManageFields"}]`
	if string(got1) != wantOps {
		t.Fatalf("operators %s\nwant      %s", got1, wantOps)
	}
	def := parts(t, e.must(200, e.call("POST", base+"/getDefinition", nil)))["eventstream.json"]
	cols := nodesByName(def, "operators")["FieldsManagerName"]["properties"].(map[string]any)["columns"].([]any)
	if len(cols) != 5 || cols[2].(map[string]any)["properties"].(map[string]any)["functionName"] != "CharIndex" {
		t.Fatalf("getDefinition columns %v", cols)
	}
}

func TestFunctionCallDefinitionRefusals(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("functions-bad")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"})).str("id")
	dev := columnRef("deviceId")
	for _, tc := range []struct {
		name, code string
		mention    []string
		col        any
	}{
		{"unknown function", "EventstreamNodeNotSupported", []string{"Exp", "ManageFields computes only Concat, CharIndex"},
			functionColumn("Exp", "e", dev)},
		{"not an ASA function", "EventstreamNodeNotSupported", []string{"Reverse"},
			functionColumn("Reverse", "e", dev)},
		{"no function name", "InvalidInput", []string{"properties.columns[3].properties.functionName"},
			functionColumn("", "e", dev)},
		{"no alias", "InvalidInput", []string{"properties.columns[3].alias"},
			functionColumn("Upper", "", dev)},
		{"nested expression", "InvalidInput", []string{"arguments[0].expressionType", "FunctionCall"},
			functionColumn("Upper", "e", map[string]any{"expressionType": "FunctionCall"})},
		{"BigInt that is not an integer", "InvalidInput", []string{"arguments[1].value", "1.5"},
			functionColumn("Substring", "e", dev, literalOf("BigInt", "1.5"), literalOf("BigInt", "2"))},
		{"literal of the wrong type", "InvalidInput", []string{"Upper wants a string here, got a number"},
			functionColumn("Upper", "e", literalOf("BigInt", "5"))},
		{"wrong arity", "InvalidInput", []string{"Upper takes 1 argument(s), got 2"},
			functionColumn("Upper", "e", dev, dev)},
		{"alias taken by a renamed column", "InvalidInput", []string{"properties.columns[3].alias", "renameAlias"},
			functionColumn("Upper", "renameAlias", dev)},
		{"alias computed twice", "InvalidInput", []string{"properties.columns[3].alias", "charindex_number"},
			functionColumn("Upper", "charindex_number", dev)},
	} {
		mf := fieldsManagerNode(t, tc.col)
		r := e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "x",
			"definition": definitionOf(functionTopology(ws, lh, mf), nil)})
		e.wantError(r, 400, tc.code)
		for _, m := range append(tc.mention, "FieldsManagerName") {
			if !strings.Contains(string(r.Raw), m) {
				t.Fatalf("%s: the error does not name %q: %s", tc.name, m, r.Raw)
			}
		}
	}
	if items := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/eventstreams", nil)).Body["value"].([]any); len(items) != 0 {
		t.Fatalf("refused creates left %v", items)
	}

	// updateDefinition with an unknown function leaves the deployed
	// eventstream as it was.
	es := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "ok",
		"definition": definitionOf(functionTopology(ws, lh, fieldsManagerNode(t)), nil)})).str("id")
	path := "/v1/workspaces/" + ws + "/eventstreams/" + es
	before := e.must(200, e.call("GET", path+"/operators", nil)).Raw
	bad := functionTopology(ws, lh, fieldsManagerNode(t, functionColumn("Exp", "e", dev)))
	r := e.call("POST", path+"/updateDefinition", map[string]any{"definition": definitionOf(bad, nil)})
	e.wantError(r, 400, "EventstreamNodeNotSupported")
	if !strings.Contains(r.str("message"), "FieldsManagerName") || !strings.Contains(r.str("message"), "Exp") {
		t.Fatalf("message does not name the node and the function: %s", r.str("message"))
	}
	if after := e.must(200, e.call("GET", path+"/operators", nil)).Raw; string(after) != string(before) {
		t.Fatalf("a refused update changed the operators:\n%s\n%s", before, after)
	}
}
