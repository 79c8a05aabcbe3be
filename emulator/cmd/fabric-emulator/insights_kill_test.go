package main

import (
	"path/filepath"
	"testing"
	"time"
)

// TestInsightsSurviveSIGKILLAfterTheSaveWindow: the data insights are
// written behind, every 2 s (runtime.InsightsSaveEvery, the documented
// window). Events counted more than that window before a SIGKILL are
// still counted after the restart: the stream's IncomingMessages is
// exactly what was produced.
func TestInsightsSurviveSIGKILLAfterTheSaveWindow(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	data, logPath := filepath.Join(dir, "data"), filepath.Join(dir, "emulator.log")
	p := startProc(t, bin, data, logPath)
	c := newClient(t, p.url)
	ws := c.must(t, 201, "POST", "/v1/workspaces", map[string]any{"displayName": "insights-kill"})["id"].(string)
	base := "/v1/workspaces/" + ws
	es := c.must(t, 201, "POST", base+"/eventstreams", map[string]any{"displayName": "insights-kill"})
	stream := es["properties"].(map[string]any)["streams"].([]any)[0].(map[string]any)["id"].(string)
	esBase := base + "/eventstreams/" + es["id"].(string)
	const n = 7
	events := make([]any, n)
	for i := range events {
		events[i] = map[string]any{"value": map[string]any{"i": i}}
	}
	c.must(t, 200, "POST", esBase+"/sources/"+stream+"/events", map[string]any{"events": events})
	incoming := func(c *client) float64 {
		m := c.must(t, 200, "GET", esBase+"/streams/"+stream+"/metrics", nil)
		v, _ := m["metrics"].(map[string]any)["IncomingMessages"].(float64)
		return v
	}
	if got := incoming(c); got != n {
		t.Fatalf("IncomingMessages = %v before the kill, want %d", got, n)
	}
	time.Sleep(3 * time.Second) // past the 2 s save window
	p.kill(t)

	p = startProc(t, bin, data, logPath)
	if got := incoming(newClient(t, p.url)); got != n {
		t.Fatalf("IncomingMessages = %v after SIGKILL and restart, want %d; log:\n%s", got, n, tail(logPath))
	}
	p.stop(t, logPath)
}
