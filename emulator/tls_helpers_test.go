package emulator_test

import (
	"bytes"
	"crypto/tls"
	"log/slog"
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
	e, _ := serveEnv(t, append([]emulator.Option{emulator.WithLogger(logger)}, opts...)...)
	e.client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: e.srv.CertPool()}}}
	t.Cleanup(e.client.CloseIdleConnections)
	return e, logs
}
