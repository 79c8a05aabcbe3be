package emulator_test

import (
	"net/http"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
)

func TestEnvelopeOnUnknownRoutesAndMethods(t *testing.T) {
	e := startEnv(t)
	e.wantError(e.call("GET", "/v1/nothing-here", nil), 404, "EndpointNotFound")
	e.wantError(e.call("GET", "/", nil), 404, "EndpointNotFound")
	r := e.call("PUT", "/v1/workspaces", nil)
	e.wantError(r, 405, "MethodNotAllowed")
	if r.Header.Get("Allow") == "" {
		t.Fatal("405 without Allow header")
	}
}

func TestAuth(t *testing.T) {
	e := startEnv(t)
	e.wantError(e.callAs("", "GET", "/v1/workspaces", nil), 401, "InvalidToken")
	e.wantError(e.callAs("garbage", "GET", "/v1/workspaces", nil), 401, "InvalidToken")

	other, err := emulator.New()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	foreign, _ := other.Token("")
	e.wantError(e.callAs(foreign, "GET", "/v1/workspaces", nil), 401, "InvalidToken")

	// Tokens minted over HTTP: expired, Power BI audience, storage audience refused.
	expired := e.must(200, e.callAs("", "POST", "/_emulator/token", map[string]any{"expiresIn": -60})).str("access_token")
	e.wantError(e.callAs(expired, "GET", "/v1/workspaces", nil), 401, "TokenExpired")
	pbi := e.must(200, e.callAs("", "POST", "/_emulator/token", map[string]any{"audience": "https://analysis.windows.net/powerbi/api"}))
	if pbi.str("token_type") != "Bearer" || pbi.Body["expires_in"].(float64) < 3000 {
		t.Fatalf("token response %s", pbi.Raw)
	}
	e.must(200, e.callAs(pbi.str("access_token"), "GET", "/v1/workspaces", nil))
	// A storage token (OneLake's audience) is minted, and the Fabric API refuses it.
	storage := e.must(200, e.callAs("", "POST", "/_emulator/token", map[string]any{"audience": "https://storage.azure.com"})).str("access_token")
	e.wantError(e.callAs(storage, "GET", "/v1/workspaces", nil), 401, "InvalidToken")
	e.wantError(e.callAs("", "POST", "/_emulator/token", map[string]any{"audience": "https://kusto.kusto.windows.net"}), 400, "InvalidInput")
	e.wantError(e.callAs("", "POST", "/_emulator/token", map[string]any{"principal": "bob"}), 400, "InvalidInput")
}

func TestTokenRouteRefusesNonLoopback(t *testing.T) {
	srv, err := emulator.New()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	req, _ := http.NewRequest("POST", "/_emulator/token", nil)
	req.RemoteAddr = "192.0.2.10:5555"
	rec := newRecorder()
	srv.Handler().ServeHTTP(rec, req)
	if rec.Code != 403 || rec.Header().Get("x-ms-public-api-error-code") != "Forbidden" {
		t.Fatalf("non-loopback token request answered %d %q", rec.Code, rec.Header().Get("x-ms-public-api-error-code"))
	}
}
