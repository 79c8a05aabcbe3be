package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/auth"
	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// handlerEnv is an API over the real control plane on a temporary store
// and an embedded broker, called in process.
type handlerEnv struct {
	t   *testing.T
	api *API
	iss *auth.Issuer
}

// newHandlerEnv starts an API for one test.
func newHandlerEnv(t *testing.T) *handlerEnv {
	t.Helper()
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
	return &handlerEnv{t: t, api: a, iss: iss}
}

// token mints a bearer token for a new principal.
func (e *handlerEnv) token() string {
	tok, _ := e.principal()
	return tok
}

// principal mints a bearer token for a new principal, and its id.
func (e *handlerEnv) principal() (token, id string) {
	e.t.Helper()
	id = uuid.NewString()
	tok, _, err := e.iss.Mint(auth.MintOptions{Principal: id})
	if err != nil {
		e.t.Fatal(err)
	}
	return tok, id
}

// answer is a recorded response.
type answer struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

// call serves one request with token tok ("" for none).
func (e *handlerEnv) call(tok, method, path, body string) answer {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	e.api.ServeHTTP(w, req)
	out := answer{status: w.Code, header: w.Header(), raw: w.Body.String()}
	_ = json.Unmarshal(w.Body.Bytes(), &out.body)
	return out
}

// wantError checks that a is Fabric's error envelope with status and code.
func (a answer) wantError(t *testing.T, status int, code string) {
	t.Helper()
	if a.status != status || a.body["errorCode"] != code {
		t.Fatalf("got %d %s, want %d %s", a.status, a.raw, status, code)
	}
	if a.body["requestId"] != a.header.Get(fabricerr.HeaderRequestID) || a.body["message"] == "" {
		t.Fatalf("not the error envelope (requestId %q, header %q): %s", a.body["requestId"], a.header.Get(fabricerr.HeaderRequestID), a.raw)
	}
}
