package portal_test

import (
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/kustofake"
)

// TestEventhousePageShowsFirstRows: the Eventhouse page lists the table an
// Eventhouse destination writes, with the Eventstream that writes it and
// the rows the Kusto engine holds; the workspace page links it.
func TestEventhousePageShowsFirstRows(t *testing.T) {
	k := kustofake.Start(t)
	f := deploy(t, emulator.WithKQLURL(k.URL()))
	eh := f.api(f.token, "POST", "/v1/workspaces/"+f.ws+"/eventhouses", map[string]any{"displayName": "telemetry"}, 201)["id"].(string)
	f.api(f.token, "POST", f.esPath+"/destinations", map[string]any{"type": "Eventhouse", "itemId": eh, "table": "Readings"}, 201)
	f.produce(map[string]any{"value": map[string]any{"city": "OSL", "temp": -3.5}}, map[string]any{"value": map[string]any{"city": "RIO", "temp": 31}})

	page := f.portal("workspaces/" + f.ws + "/eventhouses/" + eh)
	status, body := getPage(t, page, "")
	if status != 200 {
		t.Fatalf("GET the Eventhouse page: %d: %s", status, body)
	}
	for _, want := range []string{"telemetry.Readings", "Eventhouse destinations of orders", "<th scope=\"col\">city</th>", "<td>OSL</td>", "<td>RIO</td>", "-3.5", "The first 2 rows"} {
		if !strings.Contains(body, want) {
			t.Errorf("the Eventhouse page lacks %q", want)
		}
	}
	if _, ws := getPage(t, f.portal("workspaces/"+f.ws), ""); !strings.Contains(ws, "/eventhouses/"+eh) {
		t.Error("the workspace page does not link the Eventhouse")
	}
	if status, _ := getPage(t, page, viewer); status != 200 {
		t.Errorf("a Viewer reads the Eventhouse page: %d", status)
	}
}

// TestEventhousePageWithoutEngine: without --kql-url the page says that no
// engine is attached, and still lists the table its destination names.
func TestEventhousePageWithoutEngine(t *testing.T) {
	f := deploy(t)
	failedEventhouse(t, f)
	eh := ""
	for _, it := range f.api(f.token, "GET", "/v1/workspaces/"+f.ws+"/eventhouses", nil, 200)["value"].([]any) {
		eh = it.(map[string]any)["id"].(string)
	}
	status, body := getPage(t, f.portal("workspaces/"+f.ws+"/eventhouses/"+eh), "")
	if status != 200 || !strings.Contains(body, "No Kusto engine is attached") || !strings.Contains(body, "telemetry.T") {
		t.Fatalf("the Eventhouse page without an engine: %d: %s", status, body)
	}
}
