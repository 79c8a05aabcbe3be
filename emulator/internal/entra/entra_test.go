package entra

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/auth"
	"github.com/golang-jwt/jwt/v5"
)

// These tests follow Microsoft's "OAuth 2.0 client credentials flow"
// (learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow)
// and "Microsoft Entra authentication and authorization error codes"
// (.../reference-error-codes).

const (
	clientID = "7c1d2a9e-0b3f-4c55-9d7e-2f6a8b1c3d4e"
	secret   = "s3cret-value"
	tenant   = "5b8f0a2c-1d3e-4f60-8a7b-9c0d1e2f3a4b"
)

// lockedBuf is a log sink tests read.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuf) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

type fixture struct {
	t   *testing.T
	srv *httptest.Server
	iss *auth.Issuer
	log *lockedBuf
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	iss, err := auth.NewIssuer()
	if err != nil {
		t.Fatal(err)
	}
	log := &lockedBuf{}
	cfg.Issuer, cfg.Logger = iss, slog.New(slog.NewTextHandler(log, nil))
	mux := http.NewServeMux()
	for p, h := range New(cfg).Routes() {
		mux.HandleFunc(p, h)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &fixture{t: t, srv: srv, iss: iss, log: log}
}

// post sends a token request and decodes the answer.
func (f *fixture) post(path string, form url.Values, basic ...string) (int, map[string]any) {
	f.t.Helper()
	req, _ := http.NewRequest("POST", f.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if len(basic) == 2 {
		req.SetBasicAuth(url.QueryEscape(basic[0]), url.QueryEscape(basic[1]))
	}
	return f.do(req)
}

func (f *fixture) get(path string) (int, map[string]any) {
	f.t.Helper()
	req, _ := http.NewRequest("GET", f.srv.URL+path, nil)
	return f.do(req)
}

func (f *fixture) do(req *http.Request) (int, map[string]any) {
	f.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		f.t.Fatalf("%s %s: answer is not JSON: %v", req.Method, req.URL.Path, err)
	}
	return resp.StatusCode, body
}

func ccForm(scope string) url.Values {
	return url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {secret}, "scope": {scope}}
}

func TestClientCredentialsToken(t *testing.T) {
	f := newFixture(t, Config{})
	status, body := f.post("/"+tenant+"/oauth2/v2.0/token", ccForm("https://api.fabric.microsoft.com/.default"))
	if status != 200 || body["token_type"] != "Bearer" || body["expires_in"] != float64(3599) || body["ext_expires_in"] != float64(3599) {
		t.Fatalf("answer %d %v", status, body)
	}
	c, err := f.iss.Verify("Bearer " + body["access_token"].(string))
	if err != nil {
		t.Fatalf("the service's token is refused by its issuer: %v", err)
	}
	want := auth.Claims{ObjectID: ServicePrincipalID(clientID), TenantID: tenant, AppID: clientID, AppIDACR: "1", IDType: "app", Version: "1.0"}
	if c.ObjectID != want.ObjectID || c.TenantID != tenant || c.AppID != clientID || c.AppIDACR != "1" || c.IDType != "app" || c.Version != "1.0" || c.Scope != "" {
		t.Fatalf("claims %+v, want %+v", c, want)
	}
	if c.Issuer != "https://sts.windows.net/"+tenant+"/" || c.Audience[0] != auth.AudienceFabric || c.Subject != c.ObjectID {
		t.Fatalf("iss %q aud %v sub %q", c.Issuer, c.Audience, c.Subject)
	}
	if got := c.ExpiresAt.Sub(c.IssuedAt.Time); got != auth.DefaultTTL {
		t.Fatalf("lifetime %v", got)
	}
}

func TestTokenAudiences(t *testing.T) {
	f := newFixture(t, Config{Resources: []string{"http://127.0.0.1:8080"}})
	for scope, aud := range map[string]string{
		"https://api.fabric.microsoft.com/.default":                        "https://api.fabric.microsoft.com",
		"https://analysis.windows.net/powerbi/api/.default":                "https://analysis.windows.net/powerbi/api",
		"https://storage.azure.com/.default":                               "https://storage.azure.com",
		"https://storage.azure.com//.default":                              "https://storage.azure.com/",
		"https://kusto.kusto.windows.net/.default":                         "https://kusto.kusto.windows.net",
		"https://help.kusto.windows.net/.default":                          "https://help.kusto.windows.net",
		"https://trd-x.z1.kusto.fabric.microsoft.com/.default":             "https://trd-x.z1.kusto.fabric.microsoft.com",
		"http://127.0.0.1:8080/.default":                                   "http://127.0.0.1:8080",
		"openid profile https://storage.azure.com/.default offline_access": "https://storage.azure.com",
	} {
		status, body := f.post("/"+tenant+"/oauth2/v2.0/token", ccForm(scope))
		if status != 200 {
			t.Fatalf("scope %q: %d %v", scope, status, body)
		}
		var c auth.Claims
		if _, _, err := jwt.NewParser().ParseUnverified(body["access_token"].(string), &c); err != nil {
			t.Fatal(err)
		}
		if len(c.Audience) != 1 || c.Audience[0] != aud {
			t.Fatalf("scope %q: aud %v, want %s", scope, c.Audience, aud)
		}
	}
}

func TestBasicAuthAndRegisteredApp(t *testing.T) {
	apps := NewApps(false)
	app, err := apps.Register(App{ClientID: clientID, ClientSecret: secret, DisplayName: "pipeline"})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Config{Apps: apps})
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {"https://api.fabric.microsoft.com/.default"}}
	if status, body := f.post("/"+tenant+"/oauth2/v2.0/token", form, clientID, secret); status != 200 {
		t.Fatalf("HTTP Basic refused: %d %v", status, body)
	}
	if status, body := f.post("/"+tenant+"/oauth2/v2.0/token", form, clientID, "wrong"); status != 401 || body["error"] != "invalid_client" {
		t.Fatalf("wrong Basic secret: %d %v", status, body)
	}
	if app.ObjectID != ServicePrincipalID(clientID) {
		t.Fatalf("object id %s", app.ObjectID)
	}
	// An unregistered client still gets a token in an open registry.
	other := ccForm("https://api.fabric.microsoft.com/.default")
	other.Set("client_id", "0f0e0d0c-0b0a-0908-0706-050403020100")
	if status, body := f.post("/"+tenant+"/oauth2/v2.0/token", other); status != 200 {
		t.Fatalf("open registry refused an unregistered client: %d %v", status, body)
	}
}
