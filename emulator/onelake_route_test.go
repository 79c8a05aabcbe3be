package emulator_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
)

// TestOneLakeRoute: the emulator's listener serves OneLake under /onelake
// with storage-audience tokens (learn.microsoft.com/fabric/onelake/
// onelake-access-api: "OneLake supports the same tokens as ADLS Gen2,
// audience https://storage.azure.com"); a Fabric-audience token is refused,
// and the Lakehouse's oneLakeTablesPath names what it serves. The witness's
// GET {fabric}/onelake/{ws}/{lh}/Tables/clicks/_delta_log/0….json is the
// read below.
func TestOneLakeRoute(t *testing.T) {
	e := startEnv(t, emulator.WithDataDir(t.TempDir()))
	ws := e.workspace("onelake")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"}))
	es := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "es"}))
	stream := es.Body["properties"].(map[string]any)["streams"].([]any)[0].(map[string]any)["id"].(string)
	e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams/"+es.str("id")+"/destinations",
		map[string]any{"type": "Lakehouse", "itemId": lh.str("id"), "table": "clicks"}))
	e.must(200, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams/"+es.str("id")+"/sources/"+stream+"/events",
		map[string]any{"events": []any{map[string]any{"value": map[string]any{"n": 1}}}}))

	tok := e.must(200, e.callAs("", "POST", "/_emulator/token", map[string]any{"audience": "https://storage.azure.com"})).str("access_token")
	tables := lh.Body["properties"].(map[string]any)["oneLakeTablesPath"].(string)
	commit := strings.TrimPrefix(tables, e.url) + "/clicks/_delta_log/00000000000000000000.json"
	status, h, body := e.send(tok, "GET", commit, nil)
	if status != 200 || !strings.Contains(string(body), `"commitInfo"`) || h.Get("x-ms-version") == "" || h.Get("x-ms-request-id") == "" {
		t.Fatalf("GET %s: %d %v %s", commit, status, h, body)
	}
	status, h, _ = e.send(e.token, "GET", commit, nil)
	if status != http.StatusUnauthorized || h.Get("x-ms-error-code") != "InvalidAuthenticationInfo" {
		t.Fatalf("a Fabric token on OneLake: %d %v", status, h)
	}
	// The Fabric API still refuses the storage token.
	e.wantError(e.callAs(tok, "GET", "/v1/workspaces", nil), 401, "InvalidToken")
	status, h, body = e.send(tok, "GET", "/onelake/"+ws+"/lh.Lakehouse/Tables/../../x", nil)
	if status != http.StatusBadRequest || h.Get("x-ms-error-code") != "InvalidUri" || !strings.HasPrefix(string(body), "<?xml") {
		t.Fatalf("dot-dot: %d %v %s", status, h, body)
	}
}
