package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Helpers of the tests that drive the built binary as a separate process:
// build it, start it on a data dir, talk to its REST API.

// buildBinary compiles this package into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "fabric-emulator")
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("find the go command to build the binary: %v", err)
	}
	cmd := exec.Command(gobin, "build", "-o", out, ".")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./emulator/cmd/fabric-emulator: %v\n%s", err, b)
	}
	return out
}

// proc is one running emulator process.
type proc struct {
	cmd  *exec.Cmd
	url  string
	line string        // the ready line
	done chan struct{} // closed when the process has exited
	err  error         // Wait's result, once done is closed
}

var readyLine = regexp.MustCompile(`ready at (https?://\S+)`)

// startProc starts `serve` on the embedded broker with dataDir, appending
// its stderr to logPath, and waits (bounded) for its ready line; extra
// flags follow the others.
func startProc(t *testing.T, bin, dataDir, logPath string, extra ...string) *proc {
	t.Helper()
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--kafka", "embedded",
		"--kafka-endpoint", "127.0.0.1:0", "--amqp-endpoint", "127.0.0.1:0", "--data-dir", dataDir}, extra...)...)
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	ready := make(chan [2]string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := readyLine.FindStringSubmatch(sc.Text()); m != nil {
				ready <- [2]string{m[1], sc.Text()}
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { // a test that stops early leaves no process behind
		_ = cmd.Process.Kill()
		<-p.done
	})
	select {
	case r := <-ready:
		p.url, p.line = r[0], r[1]
		return p
	case <-p.done:
		t.Fatalf("the emulator exited before it was ready (%v); log:\n%s", p.err, tail(logPath))
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("the emulator printed no ready line within 60s; log:\n%s", tail(logPath))
	}
	return nil
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *proc) kill(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Kill()
	<-p.done
}

// stop sends SIGTERM and waits (bounded) for a clean exit.
func (p *proc) stop(t *testing.T, logPath string) {
	t.Helper()
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
		if p.err != nil {
			t.Errorf("the emulator's clean stop ended with %v; log:\n%s", p.err, tail(logPath))
		}
	case <-time.After(20 * time.Second):
		p.kill(t)
		t.Errorf("the emulator did not stop within 20s of SIGINT; log:\n%s", tail(logPath))
	}
}

// tail is the end of a log file, for failure messages.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// client talks to one emulator process's REST API.
type client struct {
	url, token string
	http       *http.Client
}

// newClient mints a token from the process's loopback token route.
func newClient(t *testing.T, url string) *client {
	t.Helper()
	c := &client{url: url, http: &http.Client{Timeout: 30 * time.Second}}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	status, err := c.do("POST", "/_emulator/token", map[string]any{}, &tok)
	if err != nil || status != 200 {
		t.Fatalf("mint a token: status %d: %v", status, err)
	}
	c.token = tok.AccessToken
	return c
}

// do sends a JSON request and decodes a JSON answer into out (when not nil).
func (c *client) do(method, path string, body, out any) (int, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return 0, fmt.Errorf("encode body: %w", err)
	}
	req, err := http.NewRequest(method, c.url+path, bytes.NewReader(raw))
	if err != nil {
		return 0, fmt.Errorf("new request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("send %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, fmt.Errorf("read answer: %w", err)
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(answer, out); err != nil {
			return resp.StatusCode, fmt.Errorf("decode answer %q: %w", answer, err)
		}
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, strings.TrimSpace(string(answer)))
	}
	return resp.StatusCode, nil
}

// must is do that fails the test on any error or unexpected status.
func (c *client) must(t *testing.T, want int, method, path string, body any) map[string]any {
	t.Helper()
	var out map[string]any
	status, err := c.do(method, path, body, &out)
	if err != nil || status != want {
		t.Fatalf("%s %s: want %d, got %d: %v", method, path, want, status, err)
	}
	return out
}
