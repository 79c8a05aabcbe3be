package portal_test

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The browser tests drive Debian's chromium (scripts/install-test-deps.sh
// installs it, and vendors axe-core into .cache/axe-core/) with chromedp.
// They fail, never skip, when either is missing. Screenshots of every page
// are kept in .cache/portal-screenshots/ of the repository.

// repoRoot is the repository's root (the test runs in its package's
// directory).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found from %s: %v", root, err)
	}
	return root
}

// browser is a headless chromium with a log of every request it sent.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	requests []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium not found: run scripts/install-test-deps.sh (%v)", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox, // root in a container has no user namespace sandbox
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1400, 1000),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTime(); cancel(); cancelAlloc() })
	b := &browser{ctx: ctx}
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			b.mu.Lock()
			b.requests = append(b.requests, e.Request.URL)
			b.mu.Unlock()
		}
	}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("enable the network log: %v", err)
	}
	return b
}

// do runs actions, failing the test with what on error.
func (b *browser) do(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// value runs one action and returns its value, failing the test with what
// on error.
func value[T any](t *testing.T, b *browser, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// js evaluates expression (awaiting a promise) into a T.
func js[T any](t *testing.T, b *browser, expression string) T {
	t.Helper()
	return value(t, b, expression, chromedp.Evaluate[T](expression, chromedp.EvalAwaitPromise))
}

// waitJS evaluates expression until it is true (5 s at most), across the
// navigation a click may start (an evaluation during it fails and is tried
// again).
func (b *browser) waitJS(t *testing.T, what, expression string) {
	t.Helper()
	b.waitJSFor(t, 5*time.Second, what, expression)
}

// waitJSFor is waitJS with its own bound.
func (b *browser) waitJSFor(t *testing.T, within time.Duration, what, expression string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](expression))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s (last error: %v)", what, within, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screenshot saves the whole page as name.png in dir.
func (b *browser) screenshot(t *testing.T, dir, name string) {
	t.Helper()
	png := value(t, b, "screenshot "+name, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// foreignRequests lists the requests to any host but host (data: URLs
// reach no host).
func (b *browser) foreignRequests(host string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, r := range b.requests {
		u, err := url.Parse(r)
		if err == nil && u.Scheme == "data" {
			continue // inline, the browser's own (a date input's calendar icon): no host
		}
		if err != nil || u.Host != host {
			out = append(out, r)
		}
	}
	return out
}

// shotsDir is where the browser tests leave their screenshots (make
// portal-screenshots copies them into docs/), made when missing.
func shotsDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repoRoot(t), ".cache", "portal-screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPortalInChromium: the Eventstream page shows produced events in its
// preview within 2 s, its pause button pauses a destination (the API
// confirms), the table page shows the rows, every page passes axe-core's
// WCAG 2 A/AA rules and keyboard focus is visible, and the browser
// requested nothing from any host but the emulator.
func TestPortalInChromium(t *testing.T) {
	root := repoRoot(t)
	axe, err := os.ReadFile(filepath.Join(root, ".cache", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core not vendored: run scripts/install-test-deps.sh (%v)", err)
	}
	shots := shotsDir(t)
	f := deploy(t)
	b := newBrowser(t)

	// The Eventstream page, live preview first.
	b.do(t, "open the Eventstream page", chromedp.Navigate(f.esPage()),
		chromedp.WaitVisible(chromedp.CSS(`[data-node]`)))
	value(t, b, "wait for the live preview", chromedp.Poll[bool](
		`document.querySelector("[data-preview-state]").textContent.startsWith("Live")`,
		chromedp.WithPollingTimeout(10*time.Second)))
	sent := time.Now()
	f.produce(
		map[string]any{"key": "order-1", "value": map[string]any{"amount": 12.5, "customer": "ada"}, "headers": map[string]any{"source": "browser-test"}},
		map[string]any{"key": "order-2", "value": map[string]any{"amount": 30.5, "customer": "grace"}},
		map[string]any{"key": "order-3", "value": "<b>linus</b> wrote\x00"},
	)
	value(t, b, "see the events in the preview within 2 s", chromedp.Poll[bool](
		`document.querySelectorAll("[data-preview-rows] tr").length >= 3`,
		chromedp.WithPollingTimeout(2*time.Second), chromedp.WithPollingInterval(50*time.Millisecond)))
	t.Logf("3 events reached the preview %v after the produce", time.Since(sent).Round(time.Millisecond))
	preview := js[string](t, b, `document.querySelector("[data-preview-rows]").innerText`)
	for _, want := range []string{"order-1", "order-3", `"customer": "ada"`, "source:", "browser-test", `"<b>linus</b> wrote\x00"`, "binary, 19 bytes"} {
		if !strings.Contains(preview, want) {
			t.Errorf("preview lacks %q: %s", want, preview)
		}
	}
	if n := js[int](t, b, `document.querySelectorAll("[data-preview-rows] b").length`); n != 0 {
		t.Errorf("a value's markup became %d elements of the page", n)
	}
	b.screenshot(t, shots, "preview")

	// Pause the Lakehouse destination with its button, once it has written
	// the two rows; the API confirms.
	f.waitRows(2)
	b.do(t, "pause the destination", chromedp.Click(chromedp.CSS(`button[aria-label="Pause lake"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice`)))
	if st := destinationStatus(f); st != "Paused" {
		t.Fatalf("after the pause button the API says the destination is %s", st)
	}
	if shown := js[string](t, b, `document.querySelector('[data-node="`+f.lake+`"] [data-status]').textContent`); shown != "Paused" {
		t.Fatalf("the page shows the paused destination as %q", shown)
	}
	b.screenshot(t, shots, "topology")
	canvas := value(t, b, "screenshot the topology", chromedp.Screenshot(chromedp.CSS(`section[aria-labelledby=topo-h]`)))
	if err := os.WriteFile(filepath.Join(shots, "topology-canvas.png"), canvas, 0o644); err != nil {
		t.Fatal(err)
	}
	b.checkAccessibility(t, axe, "eventstream")

	// The table page shows the rows the destination wrote before its
	// pause, and the text event it rejected (no column in common).
	b.do(t, "open the table page", chromedp.Navigate(f.tablePage()), chromedp.WaitVisible(chromedp.CSS(`table.rows`)))
	rows := js[int](t, b, `document.querySelectorAll("table.rows tbody tr").length`)
	table := js[string](t, b, `document.querySelector("table.rows").innerText`)
	if rows != 2 || !strings.Contains(table, "grace") || !strings.Contains(table, "12.5") {
		t.Fatalf("table page: %d rows: %s", rows, table)
	}
	rejected := js[string](t, b, `document.querySelector("[aria-labelledby=rejected-h]").innerText`)
	if !strings.Contains(rejected, "linus") || !strings.Contains(rejected, "no field in common") {
		t.Fatalf("rejected records: %s", rejected)
	}
	b.screenshot(t, shots, "table")
	b.checkAccessibility(t, axe, "table")

	// Every other page: a screenshot and the accessibility pass.
	for _, p := range []struct{ name, url string }{
		{"workspaces", f.portal("")},
		{"workspace", f.portal("workspaces/" + f.ws)},
		{"connection", f.esPage() + "/sources/" + f.src + "/connection"},
		{"lakehouse", f.portal("workspaces/" + f.ws + "/lakehouses/" + f.lh)},
		{"reflex", f.portal("workspaces/" + f.ws + "/reflexes/" + f.rf)},
		{"logs", f.esPage() + "/logs"},
		{"not-found", f.portal("no/such/page")},
	} {
		b.do(t, "open "+p.name, chromedp.Navigate(p.url), chromedp.WaitVisible(chromedp.CSS(`main h1`)))
		b.screenshot(t, shots, p.name)
		b.checkAccessibility(t, axe, p.name)
	}

	// The send-events round trip: the explorer's form sends a text event,
	// and its peek shows it; the page passes the accessibility pass.
	b.do(t, "open the data explorer", chromedp.Navigate(f.esPage()+"/explorer"),
		chromedp.WaitVisible(chromedp.CSS(`#send-value`)),
		chromedp.Click(chromedp.CSS(`#send-text`)),
		chromedp.SetValue(chromedp.CSS(`#send-value`), "from the browser"),
		chromedp.SetValue(chromedp.CSS(`#send-key`), "b-1"),
		chromedp.Click(chromedp.CSS(`.explorer-send button[type=submit]`)))
	b.waitJS(t, "the explorer saying it sent the event and peeking it",
		`!!document.querySelector("[data-flash]") && document.querySelector("[data-flash]").textContent.includes("Sent 1 event.") && !!document.querySelector("table.peek") && document.querySelector("table.peek").innerText.includes("from the browser")`)
	b.screenshot(t, shots, "explorer")
	b.checkAccessibility(t, axe, "explorer")

	// Act as the workspace's Viewer from its roles table: the pause
	// button is then refused, as the API refuses it.
	b.do(t, "act as the Viewer", chromedp.Navigate(f.portal("workspaces/"+f.ws)),
		chromedp.Click(chromedp.CSS(`button[aria-label="Act as `+viewer+` (Viewer)"]`)))
	b.waitJS(t, "see the page again as the Viewer",
		`document.getElementById("principal-input")?.value === "`+viewer+`" && location.pathname.endsWith("`+f.ws+`")`)
	b.do(t, "resume as the Viewer", chromedp.Navigate(f.esPage()),
		chromedp.Click(chromedp.CSS(`button[aria-label="Resume lake"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.error`)))
	if msg := js[string](t, b, `document.querySelector(".error").innerText`); !strings.Contains(msg, "InsufficientPrivileges") {
		t.Fatalf("the Viewer's resume: %s", msg)
	}
	if st := destinationStatus(f); st != "Paused" {
		t.Fatalf("a Viewer's refused resume left the destination %s", st)
	}
	b.screenshot(t, shots, "refused")

	b.checkTheCheckers(t, axe)

	host := strings.TrimPrefix(f.url, "http://")
	if foreign := b.foreignRequests(host); len(foreign) > 0 {
		t.Fatalf("the browser requested other hosts than %s: %v", host, foreign)
	}
	b.mu.Lock()
	n := len(b.requests)
	b.mu.Unlock()
	if n < 10 {
		t.Fatalf("the network log holds %d requests: is it recording?", n)
	}
	t.Logf("%d requests, all to %s; screenshots in %s", n, host, shots)
}

// violation is one axe-core rule a page breaks.
type violation struct {
	ID    string `json:"id"`
	Help  string `json:"help"`
	Nodes []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// checkAccessibility runs axe-core's WCAG 2.0/2.1 A and AA rules (labels,
// contrast, names, …) on the page, then tabs through it: every stop must
// be a visible element with a visible focus indicator.
func (b *browser) checkAccessibility(t *testing.T, axe []byte, page string) {
	t.Helper()
	js[bool](t, b, string(axe)+";true")
	violations := js[[]violation](t, b, `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}).then(r => r.violations)`)
	for _, v := range violations {
		t.Errorf("%s: axe-core %s (%s): %v", page, v.ID, v.Help, v.Nodes)
	}
	js[bool](t, b, `document.activeElement && document.activeElement.blur(), true`)
	var stops []string
	for range 12 {
		b.do(t, "tab", chromedp.KeyEvent("\t"))
		stop := js[string](t, b, focusCheck)
		if stop == "" {
			break // past the last stop
		}
		if strings.HasPrefix(stop, "BAD ") {
			t.Errorf("%s: keyboard focus: %s", page, stop)
		}
		stops = append(stops, stop)
	}
	if len(stops) < 2 {
		t.Errorf("%s: keyboard focus reached %d elements: %v", page, len(stops), stops)
	}
}

// checkTheCheckers shows that the accessibility pass can fail: on a page
// given an unlabelled input, grey-on-white text and a button without a
// focus indicator, axe-core reports the label and the contrast, and the
// focus check the button.
func (b *browser) checkTheCheckers(t *testing.T, axe []byte) {
	t.Helper()
	js[bool](t, b, `(() => {
  const m = document.querySelector("main");
  const i = document.createElement("input"); i.id = "unlabelled"; m.append(i);
  const p = document.createElement("p"); p.textContent = "faint"; p.style.color = "#bbbbbb"; m.append(p);
  const x = document.createElement("button"); x.id = "no-ring"; x.textContent = "x"; x.style.outline = "none"; m.append(x);
  return true;
})()`)
	js[bool](t, b, string(axe)+";true")
	violations := js[[]violation](t, b, `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa"]}}).then(r => r.violations)`)
	found := map[string]bool{}
	for _, v := range violations {
		found[v.ID] = true
	}
	if !found["label"] || !found["color-contrast"] {
		t.Fatalf("axe-core missed a planted unlabelled input or faint text: %v", found)
	}
	if stop := js[string](t, b, `document.getElementById("no-ring").focus(), `+focusCheck); !strings.HasPrefix(stop, "BAD no focus indicator") {
		t.Fatalf("the focus check passed a button without a focus indicator: %q", stop)
	}
}

// focusCheck describes the focused element, "BAD …" when it is not
// visible or has no focus indicator (outline or box shadow), "" when
// nothing is focused.
const focusCheck = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return "";
  const cs = getComputedStyle(el);
  const r = el.getBoundingClientRect();
  const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + " " + (el.textContent || el.value || "").trim().slice(0, 30);
  if (r.width === 0 || r.height === 0 || r.right < 0) return "BAD hidden: " + name;
  if ((cs.outlineStyle === "none" || cs.outlineWidth === "0px") && cs.boxShadow === "none") return "BAD no focus indicator: " + name;
  return name;
})()`
