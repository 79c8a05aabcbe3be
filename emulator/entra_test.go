package emulator_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/internal/auth/oidctest"
	"github.com/golang-jwt/jwt/v5"
)

// clientCredentials asks the emulator's Entra token endpoint for a token
// with raw HTTP, as the seed's witness does (POST {authority}/{tenant}/
// oauth2/v2.0/token, Microsoft's "client credentials flow", first case).
func (e *testEnv) clientCredentials(tenant, clientID, secret, scope string) (int, map[string]any) {
	e.t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {secret}, "scope": {scope}}
	client := e.client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.PostForm(e.url+"/"+tenant+"/oauth2/v2.0/token", form)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode, body
}

func (e *testEnv) spToken(scope string) string {
	e.t.Helper()
	status, body := e.clientCredentials(spTenant, spClientID, spSecret, scope)
	if status != 200 {
		e.t.Fatalf("token for %s: %d %v", scope, status, body)
	}
	return body["access_token"].(string)
}

// TestWitnessFlow is the seed's witness: a client-credentials token for
// the Fabric scope, workspace → Eventstream → Lakehouse, then a token for
// the storage scope (OneLake's audience), with only the host names
// changed.
func TestWitnessFlow(t *testing.T) {
	e := startEnv(t)
	tok := e.spToken(fabricDefault)
	ws := e.must(201, e.callAs(tok, "POST", "/v1/workspaces", map[string]any{"displayName": "witness"})).str("id")
	es := e.must(201, e.callAs(tok, "POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "orders-es"}))
	lh := e.must(201, e.callAs(tok, "POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "orders"}))
	if es.str("type") != "Eventstream" || lh.str("type") != "Lakehouse" {
		t.Fatalf("items: %s %s", es.Raw, lh.Raw)
	}
	storage := e.spToken("https://storage.azure.com/.default")
	var c jwt.MapClaims
	if _, _, err := jwt.NewParser().ParseUnverified(storage, &c); err != nil {
		t.Fatal(err)
	}
	if c["aud"] != "https://storage.azure.com" || c["oid"] != emulator.ServicePrincipalID(spClientID) || c["tid"] != spTenant || c["idtyp"] != "app" || c["appid"] != spClientID {
		t.Fatalf("storage token claims %v", c)
	}
}

// TestServicePrincipalWorkspaceRole: a service principal sees a workspace
// once it holds a role there (principal type ServicePrincipal), by the oid
// of its client-credentials token (Fabric "Add Workspace Role Assignment").
func TestServicePrincipalWorkspaceRole(t *testing.T) {
	e := startEnv(t)
	ws := e.must(201, e.call("POST", "/v1/workspaces", map[string]any{"displayName": "shared"})).str("id")
	sp := e.spToken(fabricDefault)
	e.wantError(e.callAs(sp, "GET", "/v1/workspaces/"+ws, nil), 403, "InsufficientPrivileges")
	oid := emulator.ServicePrincipalID(spClientID)
	e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/roleAssignments", map[string]any{
		"principal": map[string]any{"id": oid, "type": "ServicePrincipal"}, "role": "Contributor"}))
	e.must(200, e.callAs(sp, "GET", "/v1/workspaces/"+ws, nil))
	list := e.must(200, e.callAs(sp, "GET", "/v1/workspaces", nil))
	if !strings.Contains(string(list.Raw), ws) {
		t.Fatalf("the service principal's workspace list lacks %s: %s", ws, list.Raw)
	}
	e.must(201, e.callAs(sp, "POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "sp_lake"}))
}

// TestBearerRefusals: an expired token, a token for another audience and a
// token of an issuer the emulator does not trust are each refused with
// 401 (TokenExpired or InvalidToken, saying why), logged on one line, and
// the emulator keeps serving.
func TestBearerRefusals(t *testing.T) {
	logs := &syncBuffer{}
	e := startEnv(t, emulator.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	stranger, err := oidctest.New("RS256")
	if err != nil {
		t.Fatal(err)
	}
	defer stranger.Close()
	foreign, _ := stranger.Mint(jwt.MapClaims{"iss": stranger.URL(), "aud": "https://api.fabric.microsoft.com",
		"oid": "3f2e1d0c-4b5a-6978-8a9b-0c1d2e3f4a5b", "exp": time.Now().Add(time.Hour).Unix()})
	expired := e.expiredToken()
	for _, tc := range []struct {
		name, token, code, says string
	}{
		{"expired", expired, "TokenExpired", "expired"},
		{"storage audience", e.spToken("https://storage.azure.com/.default"), "InvalidToken", "audience"},
		{"untrusted issuer", foreign, "InvalidToken", "does not trust"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := strings.Count(logs.String(), "bearer token refused")
			r := e.callAs(tc.token, "GET", "/v1/workspaces", nil)
			e.wantError(r, 401, tc.code)
			if !strings.Contains(r.str("message"), tc.says) {
				t.Fatalf("message %q does not say %q", r.str("message"), tc.says)
			}
			if n := strings.Count(logs.String(), "bearer token refused") - before; n != 1 {
				t.Fatalf("%d log lines for one refusal:\n%s", n, logs)
			}
		})
	}
	e.must(200, e.call("GET", "/v1/workspaces", nil))
}

// expiredToken mints an already expired token through POST /_emulator/token.
func (e *testEnv) expiredToken() string {
	e.t.Helper()
	resp, err := http.PostForm(e.url+"/_emulator/token", url.Values{"expiresIn": {"-60"}})
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	tok, _ := body["access_token"].(string)
	if tok == "" {
		e.t.Fatalf("no expired token: %v", body)
	}
	return tok
}

// TestTrustedIssuer: with WithTrustedIssuer, tokens of a second OpenID
// issuer (its discovery document and JWKS) work as the emulator's own, by
// their oid; the audience and expiry rules are the same.
func TestTrustedIssuer(t *testing.T) {
	other, err := oidctest.New("RS256")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	e := startEnv(t, emulator.WithTrustedIssuer(other.URL()))
	const oid = "0d1c2b3a-4958-4766-8574-93a2b1c0d9e8"
	claims := func(aud string, exp time.Time) jwt.MapClaims {
		return jwt.MapClaims{"iss": other.URL(), "aud": aud, "oid": oid, "tid": spTenant, "idtyp": "app", "exp": exp.Unix()}
	}
	tok, _ := other.Mint(claims("https://api.fabric.microsoft.com", time.Now().Add(time.Hour)))
	ws := e.must(201, e.callAs(tok, "POST", "/v1/workspaces", map[string]any{"displayName": "federated"})).str("id")
	ra := e.must(200, e.callAs(tok, "GET", "/v1/workspaces/"+ws+"/roleAssignments/"+oid, nil))
	if ra.str("role") != "Admin" {
		t.Fatalf("creator's role: %s", ra.Raw)
	}
	expired, _ := other.Mint(claims("https://api.fabric.microsoft.com", time.Now().Add(-time.Minute)))
	e.wantError(e.callAs(expired, "GET", "/v1/workspaces", nil), 401, "TokenExpired")
	storage, _ := other.Mint(claims("https://storage.azure.com", time.Now().Add(time.Hour)))
	e.wantError(e.callAs(storage, "GET", "/v1/workspaces", nil), 401, "InvalidToken")
}

// TestEntraAppRegistryRoute: the emulator-native route registers an
// application (loopback only); its secret is then checked.
func TestEntraAppRegistryRoute(t *testing.T) {
	e := startEnv(t)
	r := e.must(200, e.callAs("", "POST", "/_emulator/entra/apps", map[string]any{"clientId": spClientID, "clientSecret": spSecret, "displayName": "ci"}))
	if r.str("objectId") != emulator.ServicePrincipalID(spClientID) || r.str("clientSecret") != "" {
		t.Fatalf("registered: %s", r.Raw)
	}
	status, body := e.clientCredentials(spTenant, spClientID, "wrong", fabricDefault)
	if status != 401 || body["error"] != "invalid_client" || !strings.HasPrefix(body["error_description"].(string), "AADSTS7000215") {
		t.Fatalf("wrong secret: %d %v", status, body)
	}
	e.wantError(e.callAs("", "POST", "/_emulator/entra/apps", map[string]any{"clientId": "not-a-guid", "clientSecret": "x"}), 400, "InvalidInput")
	list := e.must(200, e.callAs("", "GET", "/_emulator/entra/apps", nil))
	if !strings.Contains(string(list.Raw), spClientID) || strings.Contains(string(list.Raw), spSecret) {
		t.Fatalf("list: %s", list.Raw)
	}
}

// TestEntraStrictRegistryAndTenant: WithEntraApps and WithEntraTenant make
// the registry and the tenant strict.
func TestEntraStrictRegistryAndTenant(t *testing.T) {
	e := startEnv(t, emulator.WithEntraApps(emulator.EntraApp{ClientID: spClientID, ClientSecret: spSecret}), emulator.WithEntraTenant(spTenant))
	if status, body := e.clientCredentials(spTenant, spClientID, spSecret, fabricDefault); status != 200 {
		t.Fatalf("registered app: %d %v", status, body)
	}
	status, body := e.clientCredentials(spTenant, "0f0e0d0c-0b0a-0908-0706-050403020100", spSecret, fabricDefault)
	if status != 400 || body["error"] != "unauthorized_client" {
		t.Fatalf("unknown app: %d %v", status, body)
	}
	status, body = e.clientCredentials(emulator.DefaultTenantID, spClientID, spSecret, fabricDefault)
	if status != 400 || !strings.HasPrefix(body["error_description"].(string), "AADSTS90002") {
		t.Fatalf("other tenant: %d %v", status, body)
	}
}

// TestAnotherEmulatorAsTrustedIssuer: the seed's setup, where tokens come
// from another Entra emulator. Emulator B trusts emulator A's v2.0
// authority; A's client-credentials tokens (v1.0, iss sts.windows.net)
// are accepted by B, and B's own still are.
func TestAnotherEmulatorAsTrustedIssuer(t *testing.T) {
	a := startEnv(t)
	b := startEnv(t, emulator.WithTrustedIssuer(a.url+"/"+spTenant+"/v2.0"))
	fromA := a.spToken(fabricDefault)
	ws := b.must(201, b.callAs(fromA, "POST", "/v1/workspaces", map[string]any{"displayName": "from-a"})).str("id")
	b.must(200, b.callAs(fromA, "GET", "/v1/workspaces/"+ws+"/roleAssignments/"+emulator.ServicePrincipalID(spClientID), nil))
	b.must(200, b.call("GET", "/v1/workspaces", nil))
	// A token of A for another tenant is not A's tenant's: refused.
	status, body := a.clientCredentials("0a0b0c0d-0000-0000-0000-000000000001", spClientID, spSecret, fabricDefault)
	if status != 200 {
		t.Fatalf("token for another tenant: %d %v", status, body)
	}
	b.wantError(b.callAs(body["access_token"].(string), "GET", "/v1/workspaces", nil), 401, "InvalidToken")
}
