package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// specsDir is microsoft/fabric-rest-api-specs, where conformance_test.go
// reads it (FABRIC_REST_API_SPECS overrides).
func specsDir() string {
	if d := os.Getenv("FABRIC_REST_API_SPECS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "..", "shared", "fabric-rest-api-specs")
}

// TestItemTypeTableMatchesSpecs scans every item type folder's swagger.json
// (microsoft/fabric-rest-api-specs) for /workspaces/{workspaceId}/<collection>
// with POST and GET, and …/{id} with GET, PATCH and DELETE, the typed CRUD
// of Fabric's "Items - Create <Type>" operations, and checks itemTypeTable
// against the scan both ways: collection, type (the Items_Create<Type>
// operation's, in the ItemType enum's spelling) and whether the spec
// declares getDefinition and updateDefinition.
func TestItemTypeTableMatchesSpecs(t *testing.T) {
	root := specsDir()
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatalf("the Fabric OpenAPI documents are missing at %s (or set FABRIC_REST_API_SPECS): %v", root, err)
	}
	coll := regexp.MustCompile(`^/workspaces/\{workspaceId\}/(\w+)$`)
	want := map[string]itemType{}
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "platform" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, d.Name(), "swagger.json"))
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Paths map[string]map[string]json.RawMessage `json:"paths"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		for p, ops := range doc.Paths {
			m := coll.FindStringSubmatch(p)
			if m == nil || ops["post"] == nil || ops["get"] == nil {
				continue
			}
			row := scanCollection(t, doc.Paths, m[1], ops["post"])
			if row.typ != "" {
				want[row.collection] = row
			}
		}
	}
	if len(want) < 40 {
		t.Fatalf("the scan found %d typed collections; has the specs' layout changed?", len(want))
	}
	got := map[string]itemType{}
	for _, r := range itemTypeTable {
		got[r.collection] = itemType{collection: r.collection, typ: r.typ, definition: r.definition}
	}
	for _, c := range sortedKeys(want) {
		if g, ok := got[c]; !ok || g.typ != want[c].typ || g.definition != want[c].definition {
			t.Errorf("the specs declare %s %+v; the table has %+v", c, want[c], g)
		}
	}
	for _, c := range sortedKeys(got) {
		if _, ok := want[c]; !ok {
			t.Errorf("the table has %s, which no spec declares", c)
		}
	}
}

// scanCollection returns the row of a collection whose create operation is
// post: empty when the collection lacks get, update or delete of an item.
func scanCollection(t *testing.T, paths map[string]map[string]json.RawMessage, collection string, post json.RawMessage) itemType {
	t.Helper()
	var op struct {
		OperationID string `json:"operationId"`
	}
	_ = json.Unmarshal(post, &op)
	name, ok := strings.CutPrefix(op.OperationID, "Items_Create")
	if !ok {
		return itemType{}
	}
	typ, ok := canonicalType(name)
	if !ok {
		t.Errorf("%s creates %q, not in the ItemType enum", collection, name)
		return itemType{}
	}
	row := itemType{collection: collection, typ: typ}
	item := regexp.MustCompile(`^/workspaces/\{workspaceId\}/` + collection + `/\{\w+\}(/\w+)?$`)
	crud := false
	getDef, updDef := false, false
	for p, ops := range paths {
		m := item.FindStringSubmatch(p)
		switch {
		case m == nil:
		case m[1] == "":
			crud = ops["get"] != nil && ops["patch"] != nil && ops["delete"] != nil
		case m[1] == "/getDefinition":
			getDef = true
		case m[1] == "/updateDefinition":
			updDef = true
		}
	}
	if !crud {
		return itemType{}
	}
	row.definition = getDef && updDef
	return row
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
