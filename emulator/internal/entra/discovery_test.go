package entra

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
)

// TestDiscovery follows "OpenID Connect on the Microsoft identity platform"
// (learn.microsoft.com/entra/identity-platform/v2-protocols-oidc, "Find
// your app's OpenID configuration document URI") and what MSAL reads of it:
// issuer on the authority's host, token_endpoint, jwks_uri.
func TestDiscovery(t *testing.T) {
	f := newFixture(t, Config{})
	status, doc := f.get("/" + tenant + "/v2.0/.well-known/openid-configuration")
	if status != 200 || doc["issuer"] != f.srv.URL+"/"+tenant+"/v2.0" || doc["token_endpoint"] != f.srv.URL+"/"+tenant+"/oauth2/v2.0/token" {
		t.Fatalf("v2.0 document %d %v", status, doc)
	}
	_, common := f.get("/common/v2.0/.well-known/openid-configuration")
	if common["issuer"] != f.srv.URL+"/{tenantid}/v2.0" {
		t.Fatalf("common issuer %v", common["issuer"])
	}
	_, v1 := f.get("/" + tenant + "/.well-known/openid-configuration")
	if v1["issuer"] != "https://sts.windows.net/"+tenant+"/" {
		t.Fatalf("v1.0 issuer %v", v1["issuer"])
	}
	q := url.Values{"api-version": {"1.1"}, "authorization_endpoint": {f.srv.URL + "/" + tenant + "/oauth2/v2.0/authorize"}}
	_, inst := f.get("/common/discovery/instance?" + q.Encode())
	if inst["tenant_discovery_endpoint"] != f.srv.URL+"/"+tenant+"/v2.0/.well-known/openid-configuration" {
		t.Fatalf("instance discovery %v", inst)
	}

	// The JWKS verifies the service's tokens.
	resp, err := http.Get(doc["jwks_uri"].(string))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	kf, err := keyfunc.NewJWKSetJSON(raw)
	if err != nil {
		t.Fatalf("JWKS: %v", err)
	}
	_, body := f.post("/"+tenant+"/oauth2/v2.0/token", ccForm("https://storage.azure.com/.default"))
	if _, err := jwt.Parse(body["access_token"].(string), kf.Keyfunc, jwt.WithValidMethods([]string{"RS256"})); err != nil {
		t.Fatalf("token not verified by the JWKS: %v", err)
	}
}

// TestDiscoveryUnknownTenant: Entra answers an unknown tenant's discovery
// document with invalid_tenant, AADSTS90002.
func TestDiscoveryUnknownTenant(t *testing.T) {
	f := newFixture(t, Config{Tenant: tenant})
	status, body := f.get("/0a0b0c0d-0000-0000-0000-000000000001/v2.0/.well-known/openid-configuration")
	if status != 400 || body["error"] != "invalid_tenant" {
		t.Fatalf("%d %v", status, body)
	}
	checkErrorBody(t, body, "AADSTS90002")
}
