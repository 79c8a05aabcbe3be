package entra

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestRefusals checks each refusal's OAuth2 error, AADSTS code and HTTP
// status against Microsoft's error-code reference, the error body's fields
// (v2-oauth2-client-creds-grant-flow, "Error response"), and one log line
// per refusal.
func TestRefusals(t *testing.T) {
	strict := NewApps(true, App{ClientID: clientID, ClientSecret: secret})
	f := newFixture(t, Config{Apps: strict, Tenant: tenant})
	token := "/" + tenant + "/oauth2/v2.0/token"
	fabric := "https://api.fabric.microsoft.com/.default"
	with := func(k, v string) url.Values {
		form := ccForm(fabric)
		if v == "" {
			form.Del(k)
		} else {
			form.Set(k, v)
		}
		return form
	}
	for _, tc := range []struct {
		name, path string
		form       url.Values
		status     int
		error      string
		code       string
	}{
		{"wrong secret", token, with("client_secret", "nope"), 401, "invalid_client", "AADSTS7000215"},
		{"no secret", token, with("client_secret", ""), 401, "invalid_client", "AADSTS7000216"},
		{"unknown application", token, with("client_id", "0f0e0d0c-0b0a-0908-0706-050403020100"), 400, "unauthorized_client", "AADSTS700016"},
		{"client id not a GUID", token, with("client_id", "my-app"), 400, "unauthorized_client", "AADSTS700016"},
		{"no client id", token, with("client_id", ""), 400, "invalid_request", "AADSTS900144"},
		{"no grant type", token, with("grant_type", ""), 400, "invalid_request", "AADSTS900144"},
		{"password grant", token, with("grant_type", "password"), 400, "unsupported_grant_type", "AADSTS70003"},
		{"no scope", token, with("scope", ""), 400, "invalid_request", "AADSTS900144"},
		{"scope without .default", token, with("scope", "https://api.fabric.microsoft.com/Workspace.ReadWrite.All"), 400, "invalid_scope", "AADSTS1002012"},
		{"unknown resource", token, with("scope", "https://graph.example.com/.default"), 400, "invalid_scope", "AADSTS70011"},
		{"two resources", token, with("scope", fabric+" https://storage.azure.com/.default"), 400, "invalid_scope", "AADSTS28000"},
		{"unknown tenant", "/0a0b0c0d-0000-0000-0000-000000000001/oauth2/v2.0/token", ccForm(fabric), 400, "invalid_request", "AADSTS90002"},
		{"malformed tenant", "/not_a_tenant/oauth2/v2.0/token", ccForm(fabric), 400, "invalid_request", "AADSTS900023"},
		{"common", "/common/oauth2/v2.0/token", ccForm(fabric), 400, "invalid_request", "AADSTS50059"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := strings.Count(f.log.String(), "\n")
			status, body := f.post(tc.path, tc.form)
			if status != tc.status || body["error"] != tc.error {
				t.Fatalf("%d %v, want %d %s", status, body, tc.status, tc.error)
			}
			checkErrorBody(t, body, tc.code)
			lines := strings.Split(strings.TrimSpace(f.log.String()), "\n")[before:]
			if len(lines) != 1 || !strings.Contains(lines[0], tc.code) || !strings.Contains(lines[0], "entra request refused") {
				t.Fatalf("log lines %q, want one naming %s", lines, tc.code)
			}
		})
	}
	// Still serving after every refusal.
	if status, body := f.post(token, ccForm(fabric)); status != 200 {
		t.Fatalf("good request after refusals: %d %v", status, body)
	}
}

var entraTimestamp = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$`)

// checkErrorBody checks Entra's error fields.
func checkErrorBody(t *testing.T, body map[string]any, code string) {
	t.Helper()
	desc, _ := body["error_description"].(string)
	if !strings.HasPrefix(desc, code+": ") || !strings.Contains(desc, "\r\nTrace ID: ") || !strings.Contains(desc, "\r\nCorrelation ID: ") {
		t.Fatalf("error_description %q does not begin with %s: and name the trace and correlation ids", desc, code)
	}
	codes, _ := body["error_codes"].([]any)
	if len(codes) != 1 || fmt.Sprintf("AADSTS%.0f", codes[0]) != code {
		t.Fatalf("error_codes %v, want [%s]", body["error_codes"], strings.TrimPrefix(code, "AADSTS"))
	}
	ts, _ := body["timestamp"].(string)
	if !entraTimestamp.MatchString(ts) || body["trace_id"] == "" || body["correlation_id"] == "" {
		t.Fatalf("timestamp %q trace_id %v correlation_id %v", ts, body["trace_id"], body["correlation_id"])
	}
}
