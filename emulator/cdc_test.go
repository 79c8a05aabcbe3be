package emulator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
)

// cdcTopology is a definition with one CDC source of type typ.
func cdcTopology(typ string, props map[string]any) map[string]any {
	return map[string]any{
		"sources": []any{map[string]any{"name": "db-src", "type": typ, "properties": props}},
		"streams": []any{map[string]any{"name": "db-stream", "type": "DefaultStream", "properties": map[string]any{},
			"inputNodes": []any{map[string]any{"name": "db-src"}}}},
	}
}

// TestCDCDatabaseConnectionRegistration: a database connection needs a
// server, a database, a username and a password, takes no Kafka settings,
// and is answered with its server and database, never its password.
func TestCDCDatabaseConnectionRegistration(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("cdc-conn")
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"server": "db", "username": "u", "password": "p"}, "database"},
		{map[string]any{"database": "shop", "username": "u", "password": "p"}, "server"},
		{map[string]any{"server": "db", "database": "shop", "username": "u"}, "username"},
		{map[string]any{"server": "db", "database": "shop", "username": "u", "password": "p", "bootstrapServers": "k:9092"}, "server"},
		{map[string]any{"server": "db:", "database": "shop", "username": "u", "password": "p"}, "server"},
	} {
		tc.body["workspaceId"] = ws
		r := e.call("PUT", "/v1/_emulator/connections/bad-db", tc.body)
		if r.Status != 400 || !strings.Contains(string(r.Raw), tc.field) {
			t.Fatalf("%v: %d %s, want 400 naming %s", tc.body, r.Status, r.Raw, tc.field)
		}
	}
	r := e.must(201, e.call("PUT", "/v1/_emulator/connections/db", map[string]any{"workspaceId": ws,
		"server": "127.0.0.1:5432", "database": "shop", "username": "cdc", "password": "secret"}))
	if r.str("server") != "127.0.0.1:5432" || r.str("database") != "shop" || r.str("username") != "cdc" ||
		r.Body["hasPassword"] != true || strings.Contains(string(r.Raw), "secret") {
		t.Fatalf("registration answer %s", r.Raw)
	}
}

// TestCDCSourceDefinitionChecks: a CDC source's definition is checked at
// deploy (required properties, enums, a registered database connection of
// its workspace), and the CDC types without a local server are refused by
// name.
func TestCDCSourceDefinitionChecks(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("cdc-defs")
	e.must(201, e.call("PUT", "/v1/_emulator/connections/db", map[string]any{"workspaceId": ws,
		"server": "127.0.0.1", "database": "shop", "username": "cdc", "password": "p"}))
	e.must(201, e.call("PUT", "/v1/_emulator/connections/kafka", map[string]any{"workspaceId": ws, "bootstrapServers": "127.0.0.1:9"}))
	for _, tc := range []struct {
		typ   string
		props map[string]any
		want  string
	}{
		{"PostgreSQLCDC", map[string]any{"dataConnectionId": "db", "tableName": "t"}, "slotName"},
		{"PostgreSQLCDC", map[string]any{"dataConnectionId": "db", "slotName": "s"}, "tableName"},
		{"PostgreSQLCDC", map[string]any{"dataConnectionId": "db", "tableName": " , ", "slotName": "s"}, "tableName"},
		{"PostgreSQLCDC", map[string]any{"dataConnectionId": "db", "tableName": "t", "slotName": "s", "snapshotMode": "Sometimes"}, "snapshotMode"},
		{"PostgreSQLCDC", map[string]any{"dataConnectionId": "db", "tableName": "t", "slotName": "s", "publicationAutoCreateMode": "x"}, "publicationAutoCreateMode"},
		{"PostgreSQLCDC", map[string]any{"dataConnectionId": "nope", "tableName": "t", "slotName": "s"}, "not registered in this workspace"},
		{"PostgreSQLCDC", map[string]any{"dataConnectionId": "kafka", "tableName": "t", "slotName": "s"}, "not a database connection"},
		{"MySQLCDC", map[string]any{"dataConnectionId": "db", "tableName": "t"}, "serverId"},
		{"MySQLCDC", map[string]any{"dataConnectionId": "db", "tableName": "t", "serverId": 1, "port": 70000}, "port"},
		{"MySQLCDC", map[string]any{"dataConnectionId": "db", "tableName": "t", "serverId": 1, "decimalHandlingMode": "Float"}, "decimalHandlingMode"},
		{"MySQLCDC", map[string]any{"dataConnectionId": "db", "tableName": "t", "serverId": 1, "snapshotLockingMode": "All"}, "snapshotLockingMode"},
	} {
		r := e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "x", "definition": definitionOf(cdcTopology(tc.typ, tc.props), nil)})
		e.wantError(r, 400, "InvalidInput")
		if !strings.Contains(r.str("message"), tc.want) {
			t.Fatalf("%s %v: %s, want it to name %s", tc.typ, tc.props, r.str("message"), tc.want)
		}
	}
	for _, typ := range []string{"AzureSQLDBCDC", "AzureSQLMIDBCDC", "SQLServerOnVMDBCDC", "AzureCosmosDBCDC", "MongoDBCDC", "OracleDBCDC"} {
		refusedNode(t, e, ws, cdcTopology(typ, map[string]any{"dataConnectionId": "db", "tableName": "t"}), typ)
	}
}

// TestCDCSourceFailsWhenNothingAnswers: a CDC source whose server does
// not answer deploys, and its node is Failed with CDCServerUnreachable;
// its canonicalised properties are what the topology shows.
func TestCDCSourceFailsWhenNothingAnswers(t *testing.T) {
	e := startEnv(t, emulator.WithPartitions(1))
	ws := e.workspace("cdc-down")
	e.must(201, e.call("PUT", "/v1/_emulator/connections/db", map[string]any{"workspaceId": ws,
		"server": "127.0.0.1:1", "database": "shop", "username": "cdc", "password": "p"}))
	for _, typ := range []string{"PostgreSQLCDC", "MySQLCDC"} {
		props := map[string]any{"dataConnectionId": "db", "tableName": "public.t", "slotName": "s", "serverId": 7, "snapshotMode": "initial"}
		base, _ := deploy(t, e, ws, strings.ToLower(typ), map[string]any{"type": typ, "properties": props}, "", "")
		var n map[string]any
		waitFor(t, 20*time.Second, typ+" to fail", func() bool {
			n = sourceNode(t, e, base, strings.ToLower(typ)+"-src")
			return n["status"] == "Failed"
		})
		errObj, _ := n["error"].(map[string]any)
		if errObj["errorCode"] != "CDCServerUnreachable" || !strings.Contains(errObj["errorMessage"].(string), "127.0.0.1:1") {
			t.Fatalf("%s node %v", typ, n)
		}
		if p, _ := n["properties"].(map[string]any); p["snapshotMode"] != "Initial" {
			t.Fatalf("%s properties %v, want snapshotMode canonicalised to Initial", typ, p)
		}
	}
}
