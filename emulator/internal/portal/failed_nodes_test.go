package portal_test

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/twmb/franz-go/pkg/kfake"
)

// failedEventhouse binds an Eventhouse destination to the fixture's
// Eventstream on an emulator without a Kusto engine (no --kql-url) and
// produces one event: the produce answers 502 and the destination is
// Failed. It returns the destination's id.
func failedEventhouse(t *testing.T, f *fixture) string {
	t.Helper()
	eh := f.api(f.token, "POST", "/v1/workspaces/"+f.ws+"/eventhouses", map[string]any{"displayName": "telemetry"}, 201)["id"].(string)
	id := f.api(f.token, "POST", f.esPath+"/destinations", map[string]any{"type": "Eventhouse", "itemId": eh, "table": "T"}, 201)["id"].(string)
	f.api(f.token, "POST", f.producePath, map[string]any{"events": []any{map[string]any{"value": map[string]any{"n": 1}}}}, 502)
	return id
}

// topologyOf reads the fixture's topology through the API as wire types.
func topologyOf(t *testing.T, f *fixture) wire.Topology {
	t.Helper()
	req, _ := http.NewRequest("GET", f.url+f.esPath+"/topology", nil)
	req.Header.Set("Authorization", "Bearer "+f.token)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var tp wire.Topology
	if err := json.NewDecoder(r.Body).Decode(&tp); err != nil || r.StatusCode != 200 {
		t.Fatalf("topology: %d %v", r.StatusCode, err)
	}
	return tp
}

// nodeByID finds a destination of tp.
func nodeByID(tp wire.Topology, id string) (wire.Node, bool) {
	for _, n := range tp.Destinations {
		if n.ID == id {
			return n, true
		}
	}
	return wire.Node{}, false
}

// TestEventstreamPageShowsFailedAndWarningNodes: with an Eventhouse
// destination Failed (no Kusto engine) and the Lakehouse destination in
// Warning (its Kafka cluster gone), the Eventstream page answers 200 and
// shows each node's status, error code and error message; so does the
// status JSON its script polls.
func TestEventstreamPageShowsFailedAndWarningNodes(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f := deploy(t, emulator.WithKafka(c.ListenAddrs()[0]), emulator.WithProduceTimeout(3*time.Second))
	eh := failedEventhouse(t, f)
	c.Close() // the outage: the Lakehouse destination cannot read its topic
	var failed, warning wire.Node
	deadline := time.Now().Add(20 * time.Second)
	for {
		tp := topologyOf(t, f)
		failed, _ = nodeByID(tp, eh)
		warning, _ = nodeByID(tp, f.lake)
		if failed.Status == wire.StatusFailed && warning.Status == wire.StatusWarning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s the Eventhouse destination is %q and the Lakehouse one %q; want Failed and Warning", failed.Status, warning.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if failed.Error == nil || failed.Error.ErrorCode != wire.DestinationFailed || !strings.Contains(failed.Error.ErrorMessage, "--kql-url") {
		t.Fatalf("Failed node's error: %+v", failed.Error)
	}
	if warning.Error == nil || warning.Error.ErrorCode != wire.KafkaUnavailable || warning.Error.ErrorMessage == "" {
		t.Fatalf("Warning node's error: %+v", warning.Error)
	}

	status, body := getPage(t, f.esPage(), "")
	if status != 200 {
		t.Fatalf("Eventstream page: %d: %s", status, body)
	}
	// The Warning's message ends with the client's last dial error, which
	// changes from call to call; its start does not.
	const kafkaPrefix = "the Kafka cluster cannot serve the Eventstream"
	if !strings.HasPrefix(warning.Error.ErrorMessage, kafkaPrefix) {
		t.Fatalf("Warning node's message: %q", warning.Error.ErrorMessage)
	}
	for _, w := range []string{
		"Failed", string(wire.DestinationFailed), html.EscapeString(failed.Error.ErrorMessage),
		"Warning", string(wire.KafkaUnavailable), html.EscapeString(kafkaPrefix),
	} {
		if !strings.Contains(body, w) {
			t.Errorf("Eventstream page lacks %q", w)
		}
	}

	r, err := http.Get(f.esPage() + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	raw, _ := io.ReadAll(r.Body)
	var st struct {
		Nodes []struct {
			ID     string          `json:"id"`
			Status string          `json:"status"`
			Error  *wire.NodeError `json:"error"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &st); err != nil || r.StatusCode != 200 {
		t.Fatalf("status JSON: %d %v: %s", r.StatusCode, err, raw)
	}
	seen := 0
	for _, n := range st.Nodes {
		switch n.ID {
		case eh, f.lake:
			ok := n.Error != nil && *n.Error == *failed.Error // the Failed node's error is stable
			if n.ID == f.lake {
				ok = n.Error != nil && n.Error.ErrorCode == wire.KafkaUnavailable && strings.HasPrefix(n.Error.ErrorMessage, kafkaPrefix)
			}
			if !ok {
				t.Errorf("status JSON of %s: error %+v", n.ID, n.Error)
			}
			seen++
		}
	}
	if seen != 2 {
		t.Fatalf("status JSON lists %d of the two nodes: %s", seen, raw)
	}
}

// TestEventstreamPageInChromiumShowsErrorsAndFailedRefresh: in a browser,
// the Failed node shows its code and message (and the page passes
// axe-core), and once the 2 s refresh gets an error answer (the
// Eventstream deleted under the page) the page says so instead of
// freezing silently.
func TestEventstreamPageInChromiumShowsErrorsAndFailedRefresh(t *testing.T) {
	axe, err := os.ReadFile(filepath.Join(repoRoot(t), ".cache", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core not vendored: run scripts/install-test-deps.sh (%v)", err)
	}
	f := deploy(t)
	eh := failedEventhouse(t, f)
	b := newBrowser(t)
	b.do(t, "open the Eventstream page", chromedp.Navigate(f.esPage()),
		chromedp.WaitVisible(chromedp.CSS(`[data-node]`)))
	sel := `document.querySelector('[data-node="` + eh + `"] [data-error]')`
	if !js[bool](t, b, sel+` !== null && !`+sel+`.hidden`) {
		t.Fatal("the Failed node's error is not shown")
	}
	if got := js[string](t, b, sel+`.textContent`); !strings.Contains(got, string(wire.DestinationFailed)) || !strings.Contains(got, "--kql-url") {
		t.Fatalf("the Failed node shows %q", got)
	}
	if n := js[int](t, b, `[...document.querySelectorAll("[data-error]")].filter(e => !e.hidden).length`); n != 1 {
		t.Fatalf("%d nodes show an error, want only the Failed one", n)
	}
	b.checkAccessibility(t, axe, "the Eventstream page with a Failed node")
	time.Sleep(2500 * time.Millisecond) // one refresh of the script
	recent := `document.querySelector('[data-node="` + eh + `"] [data-recent-errors]')`
	if !js[bool](t, b, `!`+recent+`.hidden && `+recent+`.querySelectorAll("li").length > 0`) {
		t.Fatal("after a refresh the Failed node's last runtime errors are not shown")
	}
	if !js[bool](t, b, `document.querySelector("[data-refresh-state]").hidden`) {
		t.Fatal("the refresh notice shows before any refresh failed")
	}

	// Recovery from the page: resuming the Failed destination with Now
	// returns to the Eventstream page with the API's answer shown (it used
	// to leave the browser on a 502 page at the POST URL).
	b.do(t, "resume the Failed destination with Now",
		chromedp.SetValue(chromedp.CSS(`[data-node="`+eh+`"] select[name=startType]`), "Now"),
		chromedp.Click(chromedp.CSS(`[data-node="`+eh+`"] button[aria-label^="Resume"]`)))
	b.waitJS(t, "the Eventstream page showing the resume's answer",
		`location.pathname === "`+emulator.PortalPath+`workspaces/`+f.ws+`/eventstreams/`+f.es+`" && !!document.querySelector("[data-flash]")`)
	if got := js[string](t, b, `document.querySelector("[data-flash]").innerText`); !strings.Contains(got, "resumed") && !strings.Contains(got, string(wire.DestinationFailed)) {
		t.Fatalf("after the resume the page says %q", got)
	}
	b.checkAccessibility(t, axe, "the Eventstream page after a recovery")
	if cls := js[string](t, b, `document.querySelector('[data-graph-id="`+eh+`"] rect').getAttribute("class")`); cls != "box bad" {
		t.Fatalf("the Failed node's box in the graph is %q, want red", cls)
	}

	f.api(f.token, "DELETE", f.esPath, nil, 200)
	b.waitJS(t, "the page saying its refresh failed",
		`(() => { const n = document.querySelector("[data-refresh-state]"); return !n.hidden && n.textContent.includes("Refresh failed") && n.textContent.includes("ItemNotFound"); })()`)
}

// TestWarningNodeInChromium: with the Eventstream page open, the Kafka
// cluster goes away; the page's refresh turns the Lakehouse destination
// amber with its error code, in its card and in the graph, without a
// reload, and the page still passes axe-core.
func TestWarningNodeInChromium(t *testing.T) {
	axe, err := os.ReadFile(filepath.Join(repoRoot(t), ".cache", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core not vendored: run scripts/install-test-deps.sh (%v)", err)
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f := deploy(t, emulator.WithKafka(c.ListenAddrs()[0]), emulator.WithProduceTimeout(3*time.Second))
	b := newBrowser(t)
	b.do(t, "open the Eventstream page", chromedp.Navigate(f.esPage()),
		chromedp.WaitVisible(chromedp.CSS(`[data-node]`)))
	if cls := js[string](t, b, `document.querySelector('[data-graph-id="`+f.lake+`"] rect').getAttribute("class")`); cls != "box ok" {
		t.Fatalf("the running destination's box is %q, want green", cls)
	}
	c.Close()
	b.waitJSFor(t, 25*time.Second, "the Lakehouse destination in Warning on the open page",
		`(() => { const n = document.querySelector('[data-node="`+f.lake+`"]');
  return n.querySelector("[data-status]").textContent === "Warning" && !n.querySelector("[data-error]").hidden &&
    n.querySelector("[data-error-code]").textContent === "KafkaUnavailable" &&
    document.querySelector('[data-graph-id="`+f.lake+`"] rect').getAttribute("class") === "box warn"; })()`)
	b.screenshot(t, shotsDir(t), "warning")
	b.checkAccessibility(t, axe, "the Eventstream page with a Warning node")
}

// TestFailedNodeInChromium: in a browser, an Eventhouse destination that
// cannot deliver (no Kusto engine) shows as Failed with its error code and
// message and a red box; the Eventhouse page says why it has no rows.
// Both pages pass the accessibility pass and are photographed for docs/.
func TestFailedNodeInChromium(t *testing.T) {
	axe, err := os.ReadFile(filepath.Join(repoRoot(t), ".cache", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core not vendored: run scripts/install-test-deps.sh (%v)", err)
	}
	shots := shotsDir(t)
	f := deploy(t)
	id := failedEventhouse(t, f)
	b := newBrowser(t)
	b.do(t, "open the Eventstream page", chromedp.Navigate(f.esPage()),
		chromedp.WaitVisible(chromedp.CSS(`[data-node]`)))
	b.waitJSFor(t, 10*time.Second, "the Eventhouse destination Failed with its error",
		`(() => { const n = document.querySelector('[data-node="`+id+`"]');
  return n.querySelector("[data-status]").textContent === "Failed" && !n.querySelector("[data-error]").hidden &&
    n.querySelector("[data-error-code]").textContent !== "" && n.querySelector("[data-error-message]").textContent !== "" &&
    document.querySelector('[data-graph-id="`+id+`"] rect').getAttribute("class") === "box bad"; })()`)
	b.screenshot(t, shots, "failed")
	b.checkAccessibility(t, axe, "the Eventstream page with a Failed node")

	var ehID string
	for _, it := range f.api(f.token, "GET", "/v1/workspaces/"+f.ws+"/eventhouses", nil, 200)["value"].([]any) {
		ehID = it.(map[string]any)["id"].(string)
	}
	b.do(t, "open the Eventhouse page", chromedp.Navigate(f.portal("workspaces/"+f.ws+"/eventhouses/"+ehID)),
		chromedp.WaitVisible(chromedp.CSS(`main h1`)))
	if text := js[string](t, b, `document.querySelector("main").innerText`); !strings.Contains(text, "No Kusto engine is attached") {
		t.Fatalf("the Eventhouse page: %s", text)
	}
	b.screenshot(t, shots, "eventhouse")
	b.checkAccessibility(t, axe, "the Eventhouse page")
}
