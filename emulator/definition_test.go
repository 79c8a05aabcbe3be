package emulator_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// templateTopology is assembled from Microsoft's Eventstream template
// (../shared/fabric-event-streams-template): its CustomEndpoint source, its
// DefaultStream, its Filter and ManageFields operators (template spellings:
// aggregateFunction-era expressionType, columnPath, Nvarchar(max)), a
// DerivedStream and its Lakehouse destination, pointed at lakehouse lh.
func templateTopology(t *testing.T, ws, lh, table string) map[string]any {
	t.Helper()
	full := eventstreamTemplate(t)
	pick := func(list, name string) map[string]any {
		for _, n := range full[list].([]any) {
			if m := n.(map[string]any); m["name"] == name {
				return m
			}
		}
		t.Fatalf("template has no %s %s", list, name)
		return nil
	}
	src := pick("sources", "CustomEndpointSource")
	stream := pick("streams", "myEventstream-stream")
	stream["inputNodes"] = []any{map[string]any{"name": "CustomEndpointSource"}}
	filter := pick("operators", "FilterName")
	// Keep bikes whose BikepointID is not "0" (the template's condition).
	mf := pick("operators", "FieldsManagerName")
	mf["inputNodes"] = []any{map[string]any{"name": "FilterName"}}
	mf["properties"] = map[string]any{"columns": []any{
		map[string]any{"type": "Rename", "properties": map[string]any{"column": map[string]any{"node": nil, "columnName": "BikepointID", "expressionType": "ColumnReference"}}, "alias": "bike"},
		map[string]any{"type": "Cast", "properties": map[string]any{"targetDataType": "BigInt", "column": map[string]any{"node": nil, "columnName": "No_Bikes"}}, "alias": "bikes"},
	}}
	derived := pick("streams", "DerivedStreamName")
	derived["inputNodes"] = []any{map[string]any{"name": "FieldsManagerName"}}
	dest := pick("destinations", "LakehouseDestination")
	props := dest["properties"].(map[string]any)
	props["workspaceId"], props["itemId"], props["deltaTable"] = ws, lh, table
	dest["inputNodes"] = []any{map[string]any{"name": "DerivedStreamName"}}
	return map[string]any{
		"sources": []any{src}, "streams": []any{stream, derived}, "operators": []any{filter, mf},
		"destinations": []any{dest}, "compatibilityLevel": "1.1",
	}
}

func definitionOf(topo map[string]any, platform map[string]any) map[string]any {
	b64 := func(v any) string { j, _ := json.Marshal(v); return base64.StdEncoding.EncodeToString(j) }
	parts := []any{
		map[string]any{"path": "eventstream.json", "payload": b64(topo), "payloadType": "InlineBase64"},
		map[string]any{"path": "eventstreamProperties.json", "payload": b64(map[string]any{"retentionTimeInDays": 1, "eventThroughputLevel": "Low"}), "payloadType": "InlineBase64"},
	}
	if platform != nil {
		parts = append(parts, map[string]any{"path": ".platform", "payload": b64(platform), "payloadType": "InlineBase64"})
	}
	return map[string]any{"parts": parts}
}

// parts decodes a getDefinition answer.
func parts(t *testing.T, r resp) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, p := range r.Body["definition"].(map[string]any)["parts"].([]any) {
		pm := p.(map[string]any)
		raw, err := base64.StdEncoding.DecodeString(pm["payload"].(string))
		if err != nil || pm["payloadType"] != "InlineBase64" {
			t.Fatalf("part %v: %v", pm["path"], err)
		}
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		out[pm["path"].(string)] = v
	}
	return out
}

func nodesByName(topo map[string]any, list string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, n := range topo[list].([]any) {
		m := n.(map[string]any)
		out[m["name"].(string)] = m
	}
	return out
}

func TestDefinitionFromTemplateDeliversToLakehouse(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("defs")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "bikes_lh"}))
	tables := lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	topo := templateTopology(t, ws, lh.str("id"), "bikes")
	platform := map[string]any{"metadata": map[string]any{"type": "Eventstream", "displayName": "ignored-on-create"}, "config": map[string]any{"version": "2.0", "logicalId": "00000000-0000-0000-0000-000000000000"}}
	es := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "bikes", "definition": definitionOf(topo, platform)}))
	id := es.str("id")
	streams := es.Body["properties"].(map[string]any)["streams"].([]any)
	ds := streams[0].(map[string]any)["id"].(string)
	if streams[0].(map[string]any)["name"] != "myEventstream-stream" {
		t.Fatalf("stream %v", streams[0])
	}
	base := "/v1/workspaces/" + ws + "/eventstreams/" + id

	// The topology: ids assigned, the DefaultStream is the datasource.
	tp := e.must(200, e.call("GET", base+"/topology", nil)).Body
	src := nodesByName(tp, "sources")["CustomEndpointSource"]
	dest := nodesByName(tp, "destinations")["LakehouseDestination"]
	if nodesByName(tp, "streams")["myEventstream-stream"]["id"] != ds || src["id"] == nil || src["status"] != "Running" || dest["status"] != "Running" || tp["compatibilityLevel"] != "1.1" {
		t.Fatalf("topology %v", tp)
	}

	// Produce through the source id and through the datasource id: the
	// filter drops BikepointID "0", ManageFields keeps/renames/casts.
	for i, via := range []any{src["id"], ds} {
		e.must(200, e.call("POST", base+"/sources/"+via.(string)+"/events", fmt.Sprintf(`{"events":[
			{"value":{"BikepointID":"BP%d","No_Bikes":"%d","Street":"x"}},
			{"value":{"BikepointID":"0","No_Bikes":"9"}}]}`, i, 3+i)))
	}
	// The template's batching holds the rows until 120 s of emulator clock (batching_test.go).
	e.advance(120)
	snap := readTable(t, filepath.Join(tables, "bikes"))
	var got []string
	for _, r := range snap.Rows {
		if _, ok := r["Street"]; ok {
			t.Fatalf("unlisted column delivered: %v", r)
		}
		got = append(got, fmt.Sprint(r["bike"], "=", r["bikes"]))
	}
	sort.Strings(got)
	if strings.Join(got, ",") != "BP0=3,BP1=4" {
		t.Fatalf("rows %v", got)
	}

	// The same as bound by hand: the binding is listed natively, with the chain.
	list := e.must(200, e.call("GET", base+"/destinations", nil)).Body["value"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != dest["id"] || list[0].(map[string]any)["table"] != "bikes" {
		t.Fatalf("bindings %v", list)
	}
	if ops := e.must(200, e.call("GET", base+"/operators", nil)).Body["operators"].([]any); len(ops) != 2 {
		t.Fatalf("operators %v", ops)
	}
	// The definition owns the operators: the native routes refuse to change them.
	e.wantError(e.call("POST", base+"/operators", `[{"type":"Filter","condition":{"field":"x","op":"exists"}}]`), 409, "EventstreamHasDefinition")
	e.wantError(e.call("DELETE", base+"/operators", nil), 409, "EventstreamHasDefinition")
	if ops := e.must(200, e.call("GET", base+"/operators", nil)).Body["operators"].([]any); len(ops) != 2 {
		t.Fatalf("operators after refused changes %v", ops)
	}

	// getDefinition (typed and generic) round-trips with the ids.
	for _, path := range []string{base + "/getDefinition", "/v1/workspaces/" + ws + "/items/" + id + "/getDefinition"} {
		p := parts(t, e.must(200, e.call("POST", path, nil)))
		got := p["eventstream.json"]
		if nodesByName(got, "sources")["CustomEndpointSource"]["id"] != src["id"] || nodesByName(got, "destinations")["LakehouseDestination"]["id"] != dest["id"] ||
			nodesByName(got, "streams")["myEventstream-stream"]["id"] != ds || nodesByName(got, "destinations")["LakehouseDestination"]["status"] != nil {
			t.Fatalf("getDefinition topology %v", got)
		}
		if f := nodesByName(got, "operators")["FilterName"]; f["properties"].(map[string]any)["conditions"] == nil {
			t.Fatalf("filter not round-tripped: %v", f)
		}
		if p[".platform"]["metadata"].(map[string]any)["displayName"] != "bikes" || p["eventstreamProperties.json"]["eventThroughputLevel"] != "Low" {
			t.Fatalf("parts %v", p)
		}
	}

	// updateDefinition with updateMetadata: same nodes, new name; the
	// destination keeps its id and its rows.
	platform["metadata"].(map[string]any)["displayName"] = "bikes2"
	cur := parts(t, e.must(200, e.call("POST", base+"/getDefinition", nil)))["eventstream.json"]
	e.must(200, e.call("POST", base+"/updateDefinition?updateMetadata=true", map[string]any{"definition": definitionOf(cur, platform)}))
	if n := e.must(200, e.call("GET", base, nil)).str("displayName"); n != "bikes2" {
		t.Fatalf("displayName %q", n)
	}
	tp2 := e.must(200, e.call("GET", base+"/topology", nil)).Body
	if nodesByName(tp2, "destinations")["LakehouseDestination"]["id"] != dest["id"] || nodesByName(tp2, "sources")["CustomEndpointSource"]["id"] != src["id"] {
		t.Fatalf("ids moved: %v", tp2)
	}
	e.must(200, e.call("POST", base+"/sources/"+ds+"/events", `{"events":[{"value":{"BikepointID":"BP9","No_Bikes":"1"}}]}`))
	e.advance(120)
	if n := len(readTable(t, filepath.Join(tables, "bikes")).Rows); n != 3 {
		t.Fatalf("%d rows after update, want 3", n)
	}
}

func TestDefinitionRefusalsChangeNothing(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("refuse")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"})).str("id")
	full := eventstreamTemplate(t)
	node := func(list, name string) map[string]any {
		for _, n := range full[list].([]any) {
			if m := n.(map[string]any); m["name"] == name {
				return m
			}
		}
		return nil
	}
	base := templateTopology(t, ws, lh, "t")
	cases := []struct {
		name, list, node, typ string
	}{
		{"kinesis source", "sources", "AmazonKinesisSource", "AmazonKinesis"},
		{"pub/sub source", "sources", "GooglePubSubSource", "GooglePubSub"},
		{"cdc source", "sources", "AzureSQLDBCDCSource", "AzureSQLDBCDC"},
	}
	for _, tc := range cases {
		topo := templateTopology(t, ws, lh, "t")
		topo[tc.list] = append(topo[tc.list].([]any), node(tc.list, tc.node))
		r := e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "x", "definition": definitionOf(topo, nil)})
		e.wantError(r, 400, "EventstreamNodeNotSupported")
		if !strings.Contains(r.str("message"), tc.node) || !strings.Contains(r.str("message"), tc.typ) {
			t.Fatalf("%s: message does not name the node and type: %s", tc.name, r.str("message"))
		}
	}
	// Nothing was created.
	if items := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/eventstreams", nil)).Body["value"].([]any); len(items) != 0 {
		t.Fatalf("refused creates left %v", items)
	}

	// updateDefinition with a refused node leaves the deployed one as it was.
	es := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/items", map[string]any{"displayName": "ok", "type": "Eventstream", "definition": definitionOf(base, nil)})).str("id")
	path := "/v1/workspaces/" + ws + "/eventstreams/" + es
	before := e.must(200, e.call("GET", path+"/topology", nil)).Raw
	bad := templateTopology(t, ws, lh, "other")
	bad["destinations"] = append(bad["destinations"].([]any), node("destinations", "EventhousePushModeDestination"))
	bad["sources"] = append(bad["sources"].([]any), node("sources", "AzureSQLDBCDCSource"))
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/items/"+es+"/updateDefinition", map[string]any{"definition": definitionOf(bad, nil)}), 400, "EventstreamNodeNotSupported")
	if after := e.must(200, e.call("GET", path+"/topology", nil)).Raw; string(after) != string(before) {
		t.Fatalf("a refused update changed the topology:\n%s\n%s", before, after)
	}
	// A malformed payload and a missing target are refused too.
	e.wantError(e.call("POST", path+"/updateDefinition", map[string]any{"definition": map[string]any{"parts": []any{map[string]any{"path": "eventstream.json", "payload": "!!", "payloadType": "InlineBase64"}}}}), 400, "CorruptedPayload")
	missing := templateTopology(t, ws, "aaaaaaaa-0000-1111-2222-bbbbbbbbbbbb", "t")
	e.wantError(e.call("POST", path+"/updateDefinition", map[string]any{"definition": definitionOf(missing, nil)}), 404, "ItemNotFound")
	if after := e.must(200, e.call("GET", path+"/topology", nil)).Raw; string(after) != string(before) {
		t.Fatalf("a refused update changed the topology")
	}
	// An item type without a definition in Fabric (MLModel) has none here.
	ml := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/mlModels", map[string]any{"displayName": "ml"})).str("id")
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/items/"+ml+"/getDefinition", nil), 400, "OperationNotSupportedForItem")
}
