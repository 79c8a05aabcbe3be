package portal_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// maxPortalRSS is what the portal may add to the emulator's resident memory.
const maxPortalRSS = 10 << 20

// TestPortalRSS: two fabric-emulator processes do the same API work (a
// workspace, an Eventstream with a Lakehouse destination, 200 events); one
// serves no portal (--portal=false), the other serves it and is asked for
// every page and 1 s of live preview. Once both idle, the second's VmRSS
// exceeds the first's by less than 10 MB.
func TestPortalRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/PID/status")
	}
	bin := filepath.Join(t.TempDir(), "fabric-emulator")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/fabrictest/fabrictest/emulator/cmd/fabric-emulator").CombinedOutput(); err != nil {
		t.Fatalf("go build fabric-emulator: %v: %s", err, out)
	}
	without := measureRSS(t, bin, false)
	with := measureRSS(t, bin, true)
	t.Logf("idle VmRSS after the same work: %.1f MB without the portal, %.1f MB with it and its pages requested (+%.1f MB)",
		mb(without), mb(with), mb(with-without))
	if with-without >= maxPortalRSS {
		t.Fatalf("the portal adds %.1f MB to idle RSS, want < %.1f MB", mb(with-without), mb(maxPortalRSS))
	}
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

var readyURL = regexp.MustCompile(`ready at (http://\S+)`)

// measureRSS starts bin, does the API work (and, with portal, asks for its
// pages), lets it idle 2 s, reads its VmRSS in bytes and stops it.
func measureRSS(t *testing.T, bin string, portal bool) int64 {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--kafka", "embedded", "--kafka-endpoint", "127.0.0.1:0", "--amqp-endpoint", "127.0.0.1:0", "--portal="+strconv.FormatBool(portal))
	cmd.Env = append(os.Environ(), "FABRIC_EMULATOR_DATA=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := readyURL.FindStringSubmatch(sc.Text()); m != nil {
				ready <- m[1]
			}
		}
	}()
	var base string
	select {
	case base = <-ready:
	case <-time.After(30 * time.Second):
		t.Fatalf("no ready line within 30 s: %s", stderr.Bytes())
	}
	es := apiWork(t, base)
	if portal {
		requestPages(t, base, es)
	}
	time.Sleep(2 * time.Second)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(status)
	if m == nil {
		t.Fatalf("no VmRSS in /proc/%d/status", cmd.Process.Pid)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

// rssPaths are the API ids apiWork made.
type rssPaths struct{ ws, es, ds, lh string }

// apiWork makes a workspace, a Lakehouse and an Eventstream bound to it,
// and produces 200 events, over HTTP as the default principal.
func apiWork(t *testing.T, base string) rssPaths {
	t.Helper()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	send(t, base, "", "POST", "/_emulator/token", nil, &tok)
	var p rssPaths
	var id struct {
		ID         string
		Properties struct{ Streams []struct{ ID string } }
	}
	send(t, base, tok.AccessToken, "POST", "/v1/workspaces", map[string]any{"displayName": "rss"}, &id)
	p.ws = id.ID
	send(t, base, tok.AccessToken, "POST", "/v1/workspaces/"+p.ws+"/lakehouses", map[string]any{"displayName": "lh"}, &id)
	p.lh = id.ID
	send(t, base, tok.AccessToken, "POST", "/v1/workspaces/"+p.ws+"/eventstreams", map[string]any{"displayName": "es"}, &id)
	p.es, p.ds = id.ID, id.Properties.Streams[0].ID
	send(t, base, tok.AccessToken, "POST", "/v1/workspaces/"+p.ws+"/eventstreams/"+p.es+"/destinations", map[string]any{"type": "Lakehouse", "itemId": p.lh, "table": "t"}, nil)
	evs := make([]any, 200)
	for i := range evs {
		evs[i] = map[string]any{"key": fmt.Sprint(i), "value": map[string]any{"n": i, "s": strings.Repeat("x", 100)}}
	}
	send(t, base, tok.AccessToken, "POST", "/v1/workspaces/"+p.ws+"/eventstreams/"+p.es+"/sources/"+p.ds+"/events", map[string]any{"events": evs}, nil)
	return p
}

// requestPages asks for every portal page of p, each twice, and reads the
// live preview for 1 s.
func requestPages(t *testing.T, base string, p rssPaths) {
	t.Helper()
	portal := base + "/_emulator/portal/"
	es := portal + "workspaces/" + p.ws + "/eventstreams/" + p.es
	pages := []string{portal, portal + "workspaces/" + p.ws, es, es + "/status", es + "/logs",
		portal + "workspaces/" + p.ws + "/lakehouses/" + p.lh, portal + "workspaces/" + p.ws + "/lakehouses/" + p.lh + "/tables/t",
		portal + "static/portal.css", portal + "static/portal.js"}
	for range 2 {
		for _, u := range pages {
			r, err := http.Get(u)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, r.Body)
			r.Body.Close()
			if r.StatusCode != 200 {
				t.Fatalf("GET %s: %d", u, r.StatusCode)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", es+"/preview/"+p.ds, nil)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, r.Body)
	r.Body.Close()
	if n < 100 {
		t.Fatalf("the preview sent %d bytes in 1 s", n)
	}
}

// send sends one JSON request and decodes a 2xx answer into out.
func send(t *testing.T, base, token, method, path string, body, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, base+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	raw, _ := io.ReadAll(r.Body)
	if r.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, r.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}
