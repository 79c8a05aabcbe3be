package emulator

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// parseGoError knows net/http's own error answers and nothing else.
func TestParseGoError(t *testing.T) {
	for _, c := range []struct {
		in     string
		status int
		reason string
	}{
		{"HTTP/1.1 400 Bad Request" + goErrorHeaders + "400 Bad Request", 400, ""},
		{"HTTP/1.1 400 Bad Request: missing required Host header" + goErrorHeaders + "400 Bad Request: missing required Host header", 400, "missing required Host header"},
		{"HTTP/1.1 431 Request Header Fields Too Large" + goErrorHeaders + "431 Request Header Fields Too Large", 431, ""},
		{"HTTP/1.1 501 Not Implemented" + goErrorHeaders + "Unsupported transfer encoding", 501, ""},
	} {
		status, reason, ok := parseGoError([]byte(c.in))
		if !ok || status != c.status || reason != c.reason {
			t.Errorf("%q: got %d %q %v", c.in, status, reason, ok)
		}
	}
	// A handler's answer, even text/plain with Connection: close, is not one.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Connection", "close")
		w.WriteHeader(400)
		_, _ = w.Write([]byte("400 Bad Request"))
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	wire, err := io.ReadAll(conn)
	if err != nil || !bytes.HasPrefix(wire, []byte("HTTP/1.1 400")) {
		t.Fatalf("%q %v", wire, err)
	}
	if _, _, ok := parseGoError(wire); ok {
		t.Fatalf("a handler's answer taken for net/http's: %q", wire)
	}
	for _, in := range []string{"", "HTTP/1.1 ", "HTTP/1.1 4" + goErrorHeaders, "HTTP/1.0 400 Bad Request" + goErrorHeaders} {
		if _, _, ok := parseGoError([]byte(in)); ok {
			t.Errorf("%q taken for net/http's error", in)
		}
	}
}

func TestEnvelopeAnswerIsHTTP(t *testing.T) {
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(envelopeAnswer(400, ""))), nil)
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || resp.StatusCode != 400 || !resp.Close ||
		env["errorCode"] != "InvalidRequest" || env["requestId"] != resp.Header.Get("requestid") {
		t.Fatalf("%d close=%v %v: %v", resp.StatusCode, resp.Close, env, err)
	}
}
