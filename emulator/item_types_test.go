package emulator_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
)

// Typed item collections of every item type (Microsoft's "Items - Create
// <Type>", "List <Types>", "Get", "Update", "Delete" of each item type's
// REST reference, e.g. learn.microsoft.com/rest/api/fabric/datapipeline/items).

// partsOf is a definition of the given path → content parts, in path order.
func partsOf(files map[string]string) map[string]any {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	parts := []any{}
	for _, p := range paths {
		parts = append(parts, map[string]any{"path": p, "payload": base64.StdEncoding.EncodeToString([]byte(files[p])), "payloadType": "InlineBase64"})
	}
	return map[string]any{"parts": parts}
}

// rawPart is a part of a getDefinition answer, its payload decoded.
type rawPart struct{ Path, Payload, PayloadType string }

// rawParts returns the parts of a getDefinition answer in order.
func rawParts(t *testing.T, r resp) []rawPart {
	t.Helper()
	var body struct {
		Definition struct {
			Parts []rawPart `json:"parts"`
		} `json:"definition"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatal(err)
	}
	for i, p := range body.Definition.Parts {
		b, err := base64.StdEncoding.DecodeString(p.Payload)
		if err != nil || p.PayloadType != "InlineBase64" {
			t.Fatalf("part %s: %v %s", p.Path, err, p.PayloadType)
		}
		body.Definition.Parts[i].Payload = string(b)
	}
	return body.Definition.Parts
}

// typedFamilies are collections of each family of item types: the ones
// deployment tools publish beside an Eventstream, the data stores, the
// Real-Time Intelligence and the ML items.
var typedFamilies = []struct{ collection, typ string }{
	{"dataPipelines", "DataPipeline"}, {"notebooks", "Notebook"}, {"sparkJobDefinitions", "SparkJobDefinition"},
	{"environments", "Environment"}, {"semanticModels", "SemanticModel"}, {"reports", "Report"},
	{"warehouses", "Warehouse"}, {"mirroredDatabases", "MirroredDatabase"}, {"sqlDatabases", "SQLDatabase"},
	{"kqlQuerysets", "KQLQueryset"}, {"kqlDashboards", "KQLDashboard"}, {"mlModels", "MLModel"},
	{"mlExperiments", "MLExperiment"}, {"copyJobs", "CopyJob"}, {"variableLibraries", "VariableLibrary"},
	{"dataflows", "Dataflow"}, {"graphQLApis", "GraphQLApi"}, {"userDataFunctions", "UserDataFunction"},
	{"digitaltwinbuilders", "DigitalTwinBuilder"}, {"warehouseSnapshots", "WarehouseSnapshot"},
}

func TestTypedCollectionsOfEveryFamily(t *testing.T) {
	e := startEnv(t, emulator.WithPageSize(2))
	ws := e.workspace("typed")
	for _, f := range typedFamilies {
		func() {
			base := "/v1/workspaces/" + ws + "/" + f.collection
			var ids []string
			for i := range 3 {
				r := e.must(201, e.call("POST", base, map[string]any{"displayName": fmt.Sprint(f.typ, "_", i), "description": "d"}))
				if r.str("type") != f.typ || r.str("workspaceId") != ws || r.str("description") != "d" {
					t.Fatalf("created %s", r.Raw)
				}
				ids = append(ids, r.str("id"))
			}
			e.wantError(e.call("POST", base, map[string]any{"displayName": f.typ + "_0"}), 400, "ItemDisplayNameAlreadyInUse")
			e.wantError(e.call("POST", base, map[string]any{"displayName": " "}), 400, "InvalidInput")
			e.wantError(e.call("POST", base, map[string]any{"displayName": "x", "type": "Reflex"}), 400, "InvalidItemType")
			page := e.must(200, e.call("GET", base, nil))
			tok := page.str("continuationToken")
			if len(page.Body["value"].([]any)) != 2 || tok == "" {
				t.Fatalf("first page: %s", page.Raw)
			}
			if rest := e.must(200, e.call("GET", base+"?continuationToken="+tok, nil)); len(rest.Body["value"].([]any)) != 1 {
				t.Fatalf("second page: %s", rest.Raw)
			}
			if g := e.must(200, e.call("GET", base+"/"+ids[0], nil)); g.str("displayName") != f.typ+"_0" {
				t.Fatalf("get: %s", g.Raw)
			}
			if u := e.must(200, e.call("PATCH", base+"/"+ids[1], map[string]any{"displayName": f.typ + "_renamed", "description": "changed"})); u.str("description") != "changed" {
				t.Fatalf("update: %s", u.Raw)
			}
			other := "/v1/workspaces/" + ws + "/reflexes/" + ids[0]
			e.wantError(e.call("GET", other, nil), 404, "ItemNotFound")
			if g := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/items/"+ids[1], nil)); g.str("type") != f.typ || g.str("displayName") != f.typ+"_renamed" {
				t.Fatalf("generic get: %s", g.Raw)
			}
			e.must(200, e.call("DELETE", base+"/"+ids[2], nil))
			e.wantError(e.call("GET", base+"/"+ids[2], nil), 404, "ItemNotFound")
		}()
	}
}

// TestTypedPropertiesOfWarehouseAndSparkJobDefinition: the properties the
// specs declare for these types (warehouse/definitions.json,
// sparkjobdefinition/definitions.json) are filled.
func TestTypedPropertiesOfWarehouseAndSparkJobDefinition(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("props")
	wh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/warehouses", map[string]any{"displayName": "wh"}))
	p, _ := wh.Body["properties"].(map[string]any)
	if p == nil || p["createdDate"] == "" || p["lastUpdatedTime"] == nil {
		t.Fatalf("warehouse: %s", wh.Raw)
	}
	sjd := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/sparkJobDefinitions", map[string]any{"displayName": "sjd"}))
	if p, _ := sjd.Body["properties"].(map[string]any); p == nil || p["oneLakeRootPath"] == "" {
		t.Fatalf("spark job definition: %s", sjd.Raw)
	}
	// The generic items routes carry no properties (Fabric's Item has none).
	if g := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/items/"+wh.str("id"), nil)); g.Body["properties"] != nil {
		t.Fatalf("generic get with properties: %s", g.Raw)
	}
}

// TestGenericCreateOfEveryFamily: POST …/items with each type, with and
// without a definition (Items - Create Item).
func TestGenericCreateOfEveryFamily(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("generic")
	defs := map[string]map[string]string{
		"DataPipeline": {"pipeline-content.json": `{"properties":{"activities":[]}}`},
		"Notebook":     {"notebook-content.py": "# Fabric notebook source\n"},
		"Report":       {"definition.pbir": `{"version":"4.0"}`},
		"Environment":  {"Setting/Sparkcompute.yml": "enable_native_execution_engine: false\n"},
	}
	for _, f := range typedFamilies {
		e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/items", map[string]any{"displayName": "plain-" + f.typ, "type": f.typ}))
		if files, ok := defs[f.typ]; ok {
			id := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/items", map[string]any{"displayName": "def-" + f.typ, "type": f.typ, "definition": partsOf(files)})).str("id")
			got := rawParts(t, e.must(200, e.call("POST", "/v1/workspaces/"+ws+"/items/"+id+"/getDefinition", nil)))
			if len(got) != len(files)+1 || got[len(got)-1].Path != ".platform" {
				t.Fatalf("%s definition: %v", f.typ, got)
			}
		}
		all := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/items?type="+f.typ, nil)).Body["value"].([]any)
		want := 1
		if defs[f.typ] != nil {
			want = 2
		}
		if len(all) != want {
			t.Fatalf("%d %s items, want %d", len(all), f.typ, want)
		}
	}
}
