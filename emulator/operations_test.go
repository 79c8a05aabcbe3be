package emulator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/internal/auth"
)

// poll follows an operation until it finishes, checking the state's shape
// and headers on the way, and returns the final answer.
func (e *testEnv) poll(path string) resp {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := e.must(200, e.call("GET", path, nil))
		id := r.Header.Get("x-ms-operation-id")
		if id == "" || !strings.Contains(path, id) {
			e.t.Fatalf("x-ms-operation-id %q for %s", id, path)
		}
		for _, k := range []string{"createdTimeUtc", "lastUpdatedTimeUtc"} {
			if _, err := time.Parse(time.RFC3339, r.str(k)); err != nil || !strings.HasSuffix(r.str(k), "Z") {
				e.t.Fatalf("%s = %q, want RFC 3339 UTC", k, r.str(k))
			}
		}
		switch st := r.str("status"); st {
		case "NotStarted", "Running":
			if r.Header.Get("Retry-After") == "" || !strings.HasSuffix(r.Header.Get("Location"), "/v1/operations/"+id) {
				e.t.Fatalf("%s without Retry-After or Location: %v", st, r.Header)
			}
		case "Succeeded", "Failed":
			if r.Header.Get("Retry-After") != "" {
				e.t.Fatalf("%s with Retry-After", st)
			}
			return r
		default:
			e.t.Fatalf("status %q: %s", st, r.Raw)
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("operation %s still %s", path, r.str("status"))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// accepted checks a 202 LRO answer and returns the operation path.
func (e *testEnv) accepted(r resp) string {
	e.t.Helper()
	e.must(202, r)
	if len(r.Raw) != 0 {
		e.t.Fatalf("202 with a body: %s", r.Raw)
	}
	id := r.Header.Get("x-ms-operation-id")
	if id == "" || r.Header.Get("Location") != e.url+"/v1/operations/"+id || r.Header.Get("Retry-After") == "" {
		e.t.Fatalf("LRO headers: %v", r.Header)
	}
	return "/v1/operations/" + id
}

func TestOperationsSyncByDefault(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("sync")
	r := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/items", map[string]any{"displayName": "n", "type": "Notebook"}))
	if r.Header.Get("x-ms-operation-id") != "" || r.str("id") == "" {
		t.Fatalf("sync create: %v %s", r.Header, r.Raw)
	}
}

func TestOperationsAsyncCreate(t *testing.T) {
	e := startEnv(t, emulator.WithAsyncOperations())
	ws := e.workspace("async")
	for _, tc := range []struct{ path, typ string }{
		{"/v1/workspaces/" + ws + "/items", "Notebook"},
		{"/v1/workspaces/" + ws + "/eventstreams", ""},
		{"/v1/workspaces/" + ws + "/lakehouses", ""},
	} {
		body := map[string]any{"displayName": "it1"}
		if tc.typ != "" {
			body["type"] = tc.typ
		}
		op := e.accepted(e.call("POST", tc.path, body))
		st := e.poll(op)
		if st.str("status") != "Succeeded" || st.Body["percentComplete"] != 100.0 || st.Body["error"] != nil {
			t.Fatalf("%s: %s", tc.path, st.Raw)
		}
		if st.Header.Get("Location") != e.url+op+"/result" {
			t.Fatalf("Succeeded Location %q", st.Header.Get("Location"))
		}
		res := e.must(200, e.call("GET", op+"/result", nil))
		id := res.str("id")
		if id == "" || res.str("displayName") != "it1" || res.str("workspaceId") != ws {
			t.Fatalf("result: %s", res.Raw)
		}
		got := e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/items/"+id, nil))
		if got.str("type") != res.str("type") {
			t.Fatalf("created item %s, result %s", got.Raw, res.Raw)
		}
		// The spec's examples poll the un-versioned form.
		e.must(200, e.call("GET", strings.TrimPrefix(op, "/v1"), nil))
		e.must(200, e.call("GET", strings.TrimPrefix(op, "/v1")+"/result", nil))
	}
	if r := e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "es"}); r.Status != 202 {
		t.Fatalf("typed create: %d", r.Status)
	}
}

func TestOperationsAsyncCreateFails(t *testing.T) {
	e := startEnv(t, emulator.WithAsyncOperations())
	ws := e.workspace("fails")
	e.poll(e.accepted(e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "dup"})))
	op := e.accepted(e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "dup"}))
	st := e.poll(op)
	errBody, _ := st.Body["error"].(map[string]any)
	if st.str("status") != "Failed" || errBody["errorCode"] != "ItemDisplayNameAlreadyInUse" || errBody["message"] == "" || errBody["requestId"] == "" {
		t.Fatalf("failed create: %s", st.Raw)
	}
	if st.Header.Get("Location") != "" {
		t.Fatalf("Failed with Location %q", st.Header.Get("Location"))
	}
	e.wantError(e.call("GET", op+"/result", nil), 400, "OperationHasNoResult")
	// Access is checked before the operation starts.
	other, _ := e.srv.Token("00000000-0000-0000-0000-0000000000b0")
	r := e.callAs(other, "POST", "/v1/workspaces/"+ws+"/items", map[string]any{"displayName": "x", "type": "Notebook"})
	e.wantError(r, 403, "InsufficientPrivileges")
}

func TestOperationsNoResultAndVisibility(t *testing.T) {
	e := startEnv(t, emulator.WithAsyncOperations())
	release := make(chan struct{})
	id := emulator.StartOperation(e.srv, auth.DefaultPrincipal, func(context.Context) ([]byte, error) {
		<-release
		return nil, nil
	})
	op := "/v1/operations/" + id
	r := e.must(200, e.call("GET", op, nil))
	if s := r.str("status"); s != "NotStarted" && s != "Running" {
		t.Fatalf("status %q before release", s)
	}
	e.wantError(e.call("GET", op+"/result", nil), 400, "OperationNotCompleted")
	close(release)
	st := e.poll(op)
	if st.str("status") != "Succeeded" || st.Header.Get("Location") != "" {
		t.Fatalf("no-result op: %v %s", st.Header, st.Raw)
	}
	e.wantError(e.call("GET", op+"/result", nil), 400, "OperationHasNoResult")

	other, _ := e.srv.Token("00000000-0000-0000-0000-0000000000b0")
	e.wantError(e.callAs(other, "GET", op, nil), 404, "EntityNotFound")
	e.wantError(e.callAs(other, "GET", op+"/result", nil), 404, "EntityNotFound")
	e.wantError(e.call("GET", "/v1/operations/6f1a3c7e-0000-4000-8000-000000000000", nil), 404, "EntityNotFound")
	e.wantError(e.call("GET", "/operations/not-a-guid/result", nil), 404, "EntityNotFound")
	e.wantError(e.callAs("", "GET", op, nil), 401, "InvalidToken")
}
