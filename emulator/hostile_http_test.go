package emulator_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
)

// serveEnv is an emulator answering on a loopback listener through its own
// http.Server (Serve), as the binary does, rather than through httptest.
func serveEnv(t testing.TB, opts ...emulator.Option) (*testEnv, string) {
	t.Helper()
	srv, err := emulator.New(opts...)
	if err != nil {
		t.Fatalf("start emulator: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	tok, err := srv.Token("")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	return &testEnv{t: t, srv: srv, url: srv.Scheme() + "://" + addr, token: tok}, addr
}

// raw sends text as-is on a new connection and reads one answer.
func raw(t *testing.T, addr, text string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, text); err != nil {
		t.Fatal(err)
	}
	hr, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read the answer to %q: %v", firstLine(text), err)
	}
	defer hr.Body.Close()
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		t.Fatalf("read the body of the answer to %q: %v", firstLine(text), err)
	}
	return hr, body
}

func firstLine(s string) string { line, _, _ := strings.Cut(s, "\r\n"); return line }

// wantEnvelope checks that an answer is Fabric's JSON error envelope with
// the wanted status and code.
func wantEnvelope(t *testing.T, what string, hr *http.Response, body []byte, status int, code string) {
	t.Helper()
	var env struct {
		ErrorCode, Message, RequestID string
	}
	if err := json.Unmarshal(body, &env); err != nil || !strings.HasPrefix(hr.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("%s: answered %d %q, not a JSON envelope: %s", what, hr.StatusCode, hr.Header.Get("Content-Type"), body)
	}
	if hr.StatusCode != status || env.ErrorCode != code || hr.Header.Get("x-ms-public-api-error-code") != code {
		t.Fatalf("%s: got %d %q, want %d %q: %s", what, hr.StatusCode, env.ErrorCode, status, code, body)
	}
	if env.Message == "" || env.RequestID == "" || hr.Header.Get("requestid") != env.RequestID {
		t.Fatalf("%s: envelope without message or request id: %s", what, body)
	}
}

// Requests Go's HTTP layer or mux would answer itself get the envelope.
func TestEnvelopeForRequestsTheMuxWouldAnswer(t *testing.T) {
	e, addr := serveEnv(t)
	auth := "Authorization: Bearer " + e.token + "\r\n"
	cases := []struct {
		name, req string
		status    int
		code      string
	}{
		{"bad escape", "GET /v1/workspaces/%zz HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", 400, "InvalidRequest"},
		{"bad escape, POST", "POST /v1/%G0 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", 400, "InvalidRequest"},
		{"double slash", "GET /v1//workspaces HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", 400, "InvalidPath"},
		{"double slash, POST", "POST //v1/workspaces HTTP/1.1\r\nHost: x\r\n" + auth + "Content-Length: 2\r\n\r\n{}", 400, "InvalidPath"},
		{"dot segment", "GET /v1/./workspaces HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", 400, "InvalidPath"},
		{"dot-dot segment", "DELETE /v1/workspaces/a/../b HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", 400, "InvalidPath"},
		{"unknown method", "BREW /v1/workspaces HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", 405, "MethodNotAllowed"},
		{"invalid method token", "GE(T /v1/workspaces HTTP/1.1\r\nHost: x\r\n\r\n", 400, "InvalidRequest"},
		{"no host", "GET /v1/workspaces HTTP/1.1\r\n\r\n", 400, "InvalidRequest"},
		{"unknown route", "GET /v2/nothing HTTP/1.1\r\nHost: x\r\n\r\n", 404, "EndpointNotFound"},
		{"asterisk", "GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400, "InvalidPath"},
		{"headers too large", "GET /v1/workspaces HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 2<<20) + "\r\n\r\n", 431, "RequestHeaderFieldsTooLarge"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hr, body := raw(t, addr, c.req)
			wantEnvelope(t, c.name, hr, body, c.status, c.code)
		})
	}
	// The cleaned path is named, so the client can fix its URL.
	_, body := raw(t, addr, cases[2].req)
	if !strings.Contains(string(body), "/v1/workspaces") {
		t.Fatalf("the InvalidPath message does not name the clean path: %s", body)
	}
}
