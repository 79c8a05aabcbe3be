package emulator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
)

func TestLakehouseItems(t *testing.T) {
	dir := t.TempDir()
	e := startEnv(t, emulator.WithDataDir(dir))
	ws := e.workspace("lake")
	r := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "Sales_2026"}))
	id := r.str("id")
	props := r.Body["properties"].(map[string]any)
	tables := props["x-fabrictest-localTablesPath"].(string)
	if want := filepath.Join(dir, "onelake", ws, id, "Tables"); tables != want {
		t.Fatalf("x-fabrictest-localTablesPath = %q, want %q", tables, want)
	}
	// Fabric's oneLakeTablesPath is a OneLake URL; here on the emulator's
	// own listener (learn.microsoft.com/fabric/onelake/onelake-access-api).
	if got, want := props["oneLakeTablesPath"], e.url+"/onelake/"+ws+"/"+id+"/Tables"; got != want {
		t.Fatalf("oneLakeTablesPath = %v, want %q", got, want)
	}
	for _, p := range []string{tables, props["x-fabrictest-localFilesPath"].(string)} {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			t.Fatalf("%s is not a directory: %v", p, err)
		}
	}
	// Generic route sees it; names follow Fabric's Lakehouse rule.
	if got := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/items/"+id, nil)); got.str("type") != "Lakehouse" {
		t.Fatalf("generic get: %s", got.Raw)
	}
	for _, bad := range []string{"has space", "1starts_with_digit", "dash-ed", strings.Repeat("a", 124)} {
		e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": bad}), 400, "InvalidInput")
		e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/items", map[string]any{"displayName": bad, "type": "Lakehouse"}), 400, "InvalidInput")
	}
	list := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/lakehouses/"+id+"/tables", nil))
	if data, ok := list.Body["data"].([]any); !ok || len(data) != 0 {
		t.Fatalf("tables of a new lakehouse: %s", list.Raw)
	}
	e.must(200, e.call("DELETE", "/v1/workspaces/"+ws+"/lakehouses/"+id, nil))
	if _, err := os.Stat(filepath.Join(dir, "onelake", ws, id)); !os.IsNotExist(err) {
		t.Fatalf("lakehouse files survive the delete: %v", err)
	}
}
