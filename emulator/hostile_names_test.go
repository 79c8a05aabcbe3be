package emulator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A table name is a directory name: 256 characters is past every common
// filesystem's 255, so it is refused as bad input, not failed as a 500
// naming a server path.
func TestLakehouseTableNameAtFilesystemLimit(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/lakehouses", map[string]any{"displayName": "lh"}))
	tables := lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	dests := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/destinations"

	r := e.call("POST", dests, map[string]any{"type": "Lakehouse", "itemId": lh.str("id"), "table": strings.Repeat("a", 256)})
	e.wantError(r, 400, "InvalidInput")
	noServerPath(t, r, tables)

	e.must(201, e.call("POST", dests, map[string]any{"type": "Lakehouse", "itemId": lh.str("id"), "table": strings.Repeat("b", 255)}))
	e.must(200, e.call("POST", s.produce, map[string]any{"events": []any{map[string]any{"value": map[string]any{"x": 1}}}}))
	if _, err := os.Stat(filepath.Join(tables, strings.Repeat("b", 255), "_delta_log")); err != nil {
		t.Fatalf("the 255-character table was not written: %v", err)
	}
}

// An unexpected failure (here: a file where the table's directory goes)
// answers a generic 500; the cause, with its path, is only logged.
func TestInternalErrorHidesServerPath(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/lakehouses", map[string]any{"displayName": "lh"}))
	tables := lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	if err := os.WriteFile(filepath.Join(tables, "blocked"), []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/destinations",
		map[string]any{"type": "Lakehouse", "itemId": lh.str("id"), "table": "blocked"})
	if r.Status < 500 {
		t.Fatalf("binding over a file answered %d, want a 5xx: %s", r.Status, r.Raw)
	}
	e.wantError(r, r.Status, r.code())
	noServerPath(t, r, tables)
}

// noServerPath fails when an answer names a directory of the server.
func noServerPath(t *testing.T, r resp, dirs ...string) {
	t.Helper()
	dirs = append(dirs, os.TempDir())
	for _, d := range dirs {
		if strings.Contains(string(r.Raw), d) {
			t.Fatalf("the answer names the server path %s: %s", d, r.Raw)
		}
	}
}
