package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/faults"
)

// callFrom serves one request from remote (host:port) with token tok.
func (e *handlerEnv) callFrom(remote, tok, method, path, body string) answer {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.RemoteAddr = remote
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	w := httptest.NewRecorder()
	e.api.ServeHTTP(w, req)
	out := answer{status: w.Code, header: w.Header(), raw: w.Body.String()}
	_ = json.Unmarshal(w.Body.Bytes(), &out.body)
	return out
}

const loopback = "127.0.0.1:5555"

func TestFaultRoutesAreForLoopbackOnly(t *testing.T) {
	e := newHandlerEnv(t)
	for _, m := range []string{"GET", "POST", "DELETE"} {
		e.callFrom("192.0.2.7:4000", "", m, "/_emulator/faults", `{}`).wantError(t, 403, "Forbidden")
	}
}

func TestRESTThrottleAnswers429WithRetryAfter(t *testing.T) {
	e := newHandlerEnv(t)
	tok := e.token()
	a := e.callFrom(loopback, "", "POST", "/_emulator/faults",
		`{"id":"slow","target":{"door":"rest","route":"GET /v1/workspaces"},"effect":{"kind":"throttle","retryAfterSeconds":7},"count":2}`)
	if a.status != 201 || a.body["id"] != "slow" {
		t.Fatalf("add: %d %s", a.status, a.raw)
	}
	for range 2 {
		got := e.call(tok, "GET", "/v1/workspaces", "")
		got.wantError(t, http.StatusTooManyRequests, "RequestBlocked")
		if got.header.Get("Retry-After") != "7" || !strings.Contains(got.raw, "blocked") {
			t.Fatalf("Retry-After %q, body %s", got.header.Get("Retry-After"), got.raw)
		}
	}
	if got := e.call(tok, "GET", "/v1/workspaces", ""); got.status != 200 {
		t.Fatalf("after the count: %d %s", got.status, got.raw)
	}
	if got := e.callFrom(loopback, "", "GET", "/_emulator/faults", ""); got.status != 200 || len(got.body["value"].([]any)) != 0 {
		t.Fatalf("list after the count: %d %s", got.status, got.raw)
	}
	if e.api.cfg.Faults.Total() != 2 {
		t.Fatalf("counted %d faults", e.api.cfg.Faults.Total())
	}
	metrics := e.callFrom(loopback, "", "GET", "/_emulator/metrics", "")
	if !strings.Contains(metrics.raw, faults.MetricName+`{door="rest",effect="throttle",rule="slow"} 2`) {
		t.Fatalf("metrics lack the fault counter:\n%s", metrics.raw)
	}
}

func TestRESTErrorAndPathPattern(t *testing.T) {
	e := newHandlerEnv(t)
	tok := e.token()
	a := e.callFrom(loopback, "", "POST", "/_emulator/faults",
		`{"target":{"door":"rest","route":"/v1/workspaces/*","method":"GET"},"effect":{"kind":"error","status":502,"message":"boom"}}`)
	if a.status != 201 {
		t.Fatalf("add: %d %s", a.status, a.raw)
	}
	got := e.call(tok, "GET", "/v1/workspaces/00000000-0000-0000-0000-000000000001", "")
	got.wantError(t, 502, "FaultInjected")
	if got.body["message"] != "boom" {
		t.Fatalf("message: %s", got.raw)
	}
	if got := e.call(tok, "GET", "/v1/workspaces", ""); got.status != 200 {
		t.Fatalf("another path: %d %s", got.status, got.raw)
	}
	id := a.body["id"].(string)
	if got := e.callFrom(loopback, "", "DELETE", "/_emulator/faults/"+id, ""); got.status != 200 {
		t.Fatalf("delete: %d %s", got.status, got.raw)
	}
	e.callFrom(loopback, "", "DELETE", "/_emulator/faults/"+id, "").wantError(t, 404, "FaultRuleNotFound")
	got = e.call(tok, "GET", "/v1/workspaces/00000000-0000-0000-0000-000000000001", "")
	if got.body["errorCode"] == "FaultInjected" {
		t.Fatalf("fault after delete: %s", got.raw)
	}
}

func TestBadFaultRuleIsInvalidParameter(t *testing.T) {
	e := newHandlerEnv(t)
	a := e.callFrom(loopback, "", "POST", "/_emulator/faults", `{"target":{"door":"kafka"},"effect":{"kind":"writeFailure"}}`)
	a.wantError(t, 400, "InvalidInput")
	if !strings.Contains(a.raw, "effect.kind") {
		t.Fatalf("does not name the field: %s", a.raw)
	}
}

func TestRESTDropClosesWithoutAnswer(t *testing.T) {
	e := newHandlerEnv(t)
	srv := httptest.NewServer(e.api)
	defer srv.Close()
	a := e.callFrom(loopback, "", "POST", "/_emulator/faults", `{"target":{"door":"rest","route":"GET /v1/workspaces"},"effect":{"kind":"drop"},"count":1}`)
	if a.status != 201 {
		t.Fatalf("add: %d %s", a.status, a.raw)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/v1/workspaces", nil)
	req.Header.Set("Authorization", "Bearer "+e.token())
	resp, err := srv.Client().Transport.RoundTrip(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("answered %d, want a dropped connection", resp.StatusCode)
	}
	resp, err = srv.Client().Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after the drop: %v", err)
	}
	resp.Body.Close()
}
