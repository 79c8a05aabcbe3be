package onelake

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Principals of the tests' tokens: the token is the principal's name.
const (
	adminID  = "00000000-0000-0000-0000-0000000000a1"
	viewerID = "00000000-0000-0000-0000-0000000000b2"
	otherID  = "00000000-0000-0000-0000-0000000000c3"
	wsID     = "11111111-1111-1111-1111-111111111111"
	lhID     = "22222222-2222-2222-2222-222222222222"
)

var principals = map[string]string{"Bearer admin": adminID, "Bearer viewer": viewerID, "Bearer other": otherID}

// env is a OneLake handler over a temporary OneLake directory holding
// workspace "sales" with Lakehouse "orders", an Admin and a Viewer.
type env struct {
	t    *testing.T
	srv  *httptest.Server
	root string
	item string // the Lakehouse's directory
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	ws := store.Workspace{ID: wsID, DisplayName: "sales", CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws, store.RoleAssignment{WorkspaceID: wsID, PrincipalID: adminID, PrincipalType: "User", Role: store.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	if err := st.AddRole(ctx, store.RoleAssignment{WorkspaceID: wsID, PrincipalID: viewerID, PrincipalType: "User", Role: store.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateItem(ctx, store.Item{ID: lhID, WorkspaceID: wsID, Type: "Lakehouse", DisplayName: "orders", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	item := filepath.Join(root, wsID, lhID)
	for _, d := range []string{"Tables", "Files"} {
		if err := os.MkdirAll(filepath.Join(item, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h := New(Config{Root: root, Store: st, Verify: func(_ context.Context, a string) (string, error) {
		if p, ok := principals[a]; ok {
			return p, nil
		}
		return "", errors.New("unknown token")
	}})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &env{t: t, srv: srv, root: root, item: item}
}

// res is one answer.
type res struct {
	t    *testing.T
	resp *http.Response
	body string
}

// do sends one request with the path as given (not cleaned).
func (e *env) do(method, path, token string, hdr map[string]string, body string) *res {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+"/", strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	p, q, _ := strings.Cut(path, "?")
	req.URL.Opaque, req.URL.RawQuery = "//"+req.URL.Host+p, q // the path exactly as given

	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return &res{t: e.t, resp: resp, body: string(b)}
}

// want checks the status and, for errors, the x-ms-error-code.
func (r *res) want(status int, code string) *res {
	r.t.Helper()
	resp := r.resp
	if resp.StatusCode != status {
		r.t.Fatalf("%s %s: status %d, want %d: %s", resp.Request.Method, resp.Request.URL, resp.StatusCode, status, r.body)
	}
	if got := resp.Header.Get("x-ms-error-code"); got != code {
		r.t.Fatalf("%s %s: x-ms-error-code %q, want %q: %s", resp.Request.Method, resp.Request.URL, got, code, r.body)
	}
	if resp.Header.Get("x-ms-request-id") == "" || resp.Header.Get("x-ms-version") == "" {
		r.t.Fatalf("x-ms-request-id or x-ms-version missing: %v", resp.Header)
	}
	return r
}

func (e *env) file(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.item, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}
