package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/auth"
	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// TestCallerReachFirst: a route that changes something answers the
// caller's reach of the resource (404, 403) before it reads the body, as
// it did before the control plane took the change over, and a caller who
// may answers the body's problem.
func TestCallerReachFirst(t *testing.T) {
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	b, err := broker.Embedded(broker.EmbeddedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	iss, err := auth.NewIssuer()
	if err != nil {
		t.Fatal(err)
	}
	a := New(Config{Store: st, Broker: b, Issuer: iss, OneLakeDir: t.TempDir()})
	t.Cleanup(func() { _ = a.Runtime().Close(t.Context()) })
	token := func(principal string) string {
		tok, _, err := iss.Mint(auth.MintOptions{Principal: principal})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	admin, stranger := token(uuid.NewString()), token(uuid.NewString())
	call := func(tok, method, path, body string) (int, map[string]any) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		a.ServeHTTP(w, req)
		var out map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &out)
		return w.Code, out
	}
	code, ws := call(admin, "POST", "/v1/workspaces", `{"displayName":"w"}`)
	if code != http.StatusCreated {
		t.Fatalf("create workspace: %d %v", code, ws)
	}
	base := "/v1/workspaces/" + ws["id"].(string)
	code, es := call(admin, "POST", base+"/eventstreams", `{"displayName":"es"}`)
	if code != http.StatusCreated {
		t.Fatalf("create eventstream: %d %v", code, es)
	}
	esPath := base + "/eventstreams/" + es["id"].(string)
	cases := []struct {
		method, path string
		status       int
		code         string
		admin        int // what the admin gets with a broken body
	}{
		{"POST", esPath + "/destinations", 403, "InsufficientPrivileges", 400},
		{"POST", esPath + "/resume", 403, "InsufficientPrivileges", 400},
		{"PATCH", esPath, 403, "InsufficientPrivileges", 400},
		{"PATCH", base, 403, "InsufficientPrivileges", 400},
		{"POST", base + "/roleAssignments", 403, "InsufficientPrivileges", 400},
		// An unknown source is not found before its body is read.
		{"POST", esPath + "/sources/" + uuid.NewString() + "/resume", 403, "InsufficientPrivileges", 404},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path[len(base):], func(t *testing.T) {
			for _, body := range []string{"", "{not json"} {
				code, out := call(stranger, c.method, c.path, body)
				if code != c.status || out["errorCode"] != c.code {
					t.Fatalf("a stranger with body %q: %d %v, want %d %s", body, code, out, c.status, c.code)
				}
			}
			if code, out := call(admin, c.method, c.path, "{not json"); code != c.admin {
				t.Fatalf("the admin with a broken body: %d %v, want %d", code, out, c.admin)
			}
		})
	}
	if code, out := call(admin, "POST", esPath+"/resume", `{"startType":"Soon"}`); code != 400 || out["errorCode"] != "InvalidInput" {
		t.Fatalf("resume with a bad startType: %d %v", code, out)
	}
}
