package emulator_test

import (
	"bytes"
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
)

// logBuffer collects an emulator's log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines returns the logged lines that contain sub.
func (b *logBuffer) lines(sub string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, l := range strings.Split(b.buf.String(), "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

// startServed starts an emulator serving on a real loopback listener (TLS
// needs the emulator's own Serve, not httptest), logging into a buffer.
// With TLS, its client trusts the emulator's CA.
func startServed(t *testing.T, opts ...emulator.Option) (*testEnv, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := emulator.New(append([]emulator.Option{emulator.WithLogger(logger)}, opts...)...)
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
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: srv.CertPool()}}}
	t.Cleanup(client.CloseIdleConnections)
	return &testEnv{t: t, srv: srv, url: srv.Scheme() + "://" + ln.Addr().String(), token: tok, client: client}, logs
}
