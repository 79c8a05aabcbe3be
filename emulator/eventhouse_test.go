package emulator_test

import (
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
)

func TestEventhouseAndKQLDatabaseItems(t *testing.T) {
	e := startEnv(t, emulator.WithKQLURL("http://127.0.0.1:8080/"))
	ws := e.workspace("rti")
	eh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventhouses", map[string]any{"displayName": "telemetry.eh-1"}))
	props := eh.Body["properties"].(map[string]any)
	if props["queryServiceUri"] != "http://127.0.0.1:8080" || props["ingestionServiceUri"] != "http://127.0.0.1:8080" {
		t.Fatalf("service URIs: %v", props)
	}
	dbs := props["databasesItemIds"].([]any)
	if len(dbs) != 1 {
		t.Fatalf("default database missing: %v", props)
	}
	def := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/kqlDatabases/"+dbs[0].(string), nil))
	dp := def.Body["properties"].(map[string]any)
	if def.str("displayName") != "telemetry.eh-1" || dp["parentEventhouseItemId"] != eh.str("id") || dp["databaseType"] != "ReadWrite" {
		t.Fatalf("default database: %s", def.Raw)
	}

	// A second database needs Fabric's creationPayload.
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/kqlDatabases", map[string]any{"displayName": "second"}), 400, "InvalidInput")
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/kqlDatabases", map[string]any{"displayName": "second",
		"creationPayload": map[string]any{"databaseType": "ReadWrite", "parentEventhouseItemId": ws}}), 404, "ItemNotFound")
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/kqlDatabases", map[string]any{"displayName": "second",
		"creationPayload": map[string]any{"databaseType": "Shortcut", "parentEventhouseItemId": eh.str("id")}}), 400, "InvalidInput")
	second := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/items", map[string]any{"displayName": "second", "type": "KQLDatabase",
		"creationPayload": map[string]any{"databaseType": "ReadWrite", "parentEventhouseItemId": eh.str("id")}}))
	got := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/eventhouses/"+eh.str("id"), nil))
	if n := len(got.Body["properties"].(map[string]any)["databasesItemIds"].([]any)); n != 2 {
		t.Fatalf("eventhouse lists %d databases, want 2", n)
	}
	e.wantError(e.call("POST", "/v1/workspaces/"+ws+"/eventhouses", map[string]any{"displayName": "bad name"}), 400, "InvalidInput")

	// Deleting the Eventhouse deletes its databases.
	e.must(200, e.call("DELETE", "/v1/workspaces/"+ws+"/eventhouses/"+eh.str("id"), nil))
	e.wantError(e.call("GET", "/v1/workspaces/"+ws+"/kqlDatabases/"+second.str("id"), nil), 404, "ItemNotFound")
	e.wantError(e.call("GET", "/v1/workspaces/"+ws+"/kqlDatabases/"+dbs[0].(string), nil), 404, "ItemNotFound")
}
