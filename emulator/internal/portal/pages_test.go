package portal_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
)

// getPage fetches a portal page as principal ("" the default) and returns
// the status and the body.
func getPage(t *testing.T, rawURL, principal string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if principal != "" {
		req.AddCookie(&http.Cookie{Name: "fabric-portal-principal", Value: principal})
	}
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	if ct := r.Header.Get("Content-Type"); r.StatusCode != 404 && !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("GET %s: Content-Type %q", rawURL, ct)
	}
	return r.StatusCode, string(b)
}

// TestPagesShowWhatTheAPIHolds: every page answers with the fixture's data.
func TestPagesShowWhatTheAPIHolds(t *testing.T) {
	f := deploy(t)
	f.produce(map[string]any{"key": "o-1", "value": map[string]any{"amount": 12.5}}, map[string]any{"key": "o-2", "value": map[string]any{"amount": 7.5}})
	f.waitRows(2)
	for _, c := range []struct {
		path string
		want []string
	}{
		{"", []string{"demo", "Admin"}},
		{"workspaces/" + f.ws, []string{"orders", "sales", "alerts", "Eventstream", "Lakehouse", "Reflex", viewer, "Viewer"}},
		{"workspaces/" + f.ws + "/eventstreams/" + f.es, []string{"app", "orders-stream", "out", "lake", "Running", "IncomingMessages", "Pause lake", "Data preview"}},
		{"workspaces/" + f.ws + "/eventstreams/" + f.es + "/sources/" + f.src + "/connection", []string{"Endpoint=sb://", "SharedAccessKey=", "Copy"}},
		{"workspaces/" + f.ws + "/eventstreams/" + f.es + "/destinations/" + f.out + "/connection", []string{"$Default"}},
		{"workspaces/" + f.ws + "/lakehouses/" + f.lh, []string{"orders"}},
		{"workspaces/" + f.ws + "/lakehouses/" + f.lh + "/tables/orders", []string{"amount", "12.5", "STREAMING UPDATE"}},
		{"workspaces/" + f.ws + "/reflexes/" + f.rf, []string{"on-order", "TableMaintenance", "Microsoft.Fabric.Eventstream.EventReceived"}},
		{"workspaces/" + f.ws + "/eventstreams/" + f.es + "/logs", []string{"Runtime logs"}},
	} {
		status, body := getPage(t, f.portal(c.path), "")
		if status != 200 {
			t.Fatalf("GET %s: %d: %s", c.path, status, body)
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s: page lacks %q", c.path, w)
			}
		}
	}
}

// TestPrincipalRolesApply: the portal sees and does what the chosen
// principal's roles allow, as the API answers them.
func TestPrincipalRolesApply(t *testing.T) {
	f := deploy(t)
	if status, body := getPage(t, f.portal(""), stranger); status != 200 || strings.Contains(body, "demo") {
		t.Fatalf("a stranger's workspace list: %d, lists demo: %v", status, strings.Contains(body, "demo"))
	}
	if status, body := getPage(t, f.esPage(), stranger); status != 403 || !strings.Contains(body, "InsufficientPrivileges") {
		t.Fatalf("a stranger's Eventstream page: %d %s", status, body)
	}
	if status, _ := getPage(t, f.esPage(), viewer); status != 200 {
		t.Fatalf("a Viewer's Eventstream page: %d", status)
	}
	// A Viewer may read the topology but not pause a destination, nor read
	// a connection (Contributors and up).
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(f.url)
	jar.SetCookies(u, []*http.Cookie{{Name: "fabric-portal-principal", Value: viewer, Path: emulator.PortalPath}})
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := c.PostForm(f.esPage()+"/destinations/"+f.lake+"/pause", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 303 || r.Header.Get("Location") != emulator.PortalPath+"workspaces/"+f.ws+"/eventstreams/"+f.es {
		t.Fatalf("a Viewer's pause: %d %s", r.StatusCode, b)
	}
	if _, body := getWith(t, c, f.esPage()); !strings.Contains(body, "InsufficientPrivileges") {
		t.Fatal("the page after a Viewer's pause does not show the refusal")
	}
	if st := destinationStatus(f); st != "Running" {
		t.Fatalf("after a refused pause the destination is %s", st)
	}
	if status, _ := getPage(t, f.esPage()+"/sources/"+f.src+"/connection", viewer); status != 403 {
		t.Fatalf("a Viewer's connection page: %d", status)
	}
	// Choosing the principal sets the cookie and returns to the page.
	r, err = c.PostForm(f.portal("principal"), url.Values{"principal": {stranger}, "back": {emulator.PortalPath + "workspaces/" + f.ws}})
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 303 || r.Header.Get("Location") != emulator.PortalPath+"workspaces/"+f.ws || !strings.Contains(r.Header.Get("Set-Cookie"), stranger) {
		t.Fatalf("choose principal: %d %v", r.StatusCode, r.Header)
	}
	r, err = c.PostForm(f.portal("principal"), url.Values{"principal": {"not-a-guid"}, "back": {"https://elsewhere.example/"}})
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 400 {
		t.Fatalf("a principal that is no GUID: %d", r.StatusCode)
	}
}

// destinationStatus is the lake destination's status, through the API.
func destinationStatus(f *fixture) string {
	d := f.api(f.token, "GET", f.esPath+"/destinations/"+f.lake, nil, 200)
	s, _ := d["status"].(string)
	return s
}

// TestPauseAndResumeButtons: the buttons' POSTs pause and resume through
// the API and return to the page.
func TestPauseAndResumeButtons(t *testing.T) {
	f := deploy(t)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, step := range []struct{ action, want, done string }{{"pause", "Paused", "paused"}, {"resume", "Running", "resumed"}} {
		r, err := c.PostForm(f.esPage()+"/destinations/"+f.lake+"/"+step.action, url.Values{"startType": {"Now"}})
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		loc := r.Header.Get("Location")
		if r.StatusCode != 303 || loc != emulator.PortalPath+"workspaces/"+f.ws+"/eventstreams/"+f.es {
			t.Fatalf("%s: %d %v", step.action, r.StatusCode, loc)
		}
		if st := destinationStatus(f); st != step.want {
			t.Fatalf("after %s the destination is %s", step.action, st)
		}
		req, _ := http.NewRequest("GET", f.url+loc, nil)
		for _, ck := range r.Cookies() {
			req.AddCookie(ck)
		}
		if !flashShows(t, req, "Destination lake "+step.done+".") {
			t.Fatalf("the page after %s does not say so", step.action)
		}
	}
	if _, body := getPage(t, f.esPage()+"?paused=forged+message", ""); strings.Contains(body, "forged") {
		t.Fatal("the page repeats a notice from its URL")
	}
	r, err := c.PostForm(f.esPage()+"/destinations/"+f.lake+"/resume", url.Values{"startType": {"Sometime"}})
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	req, _ := http.NewRequest("GET", f.esPage(), nil)
	for _, ck := range r.Cookies() {
		req.AddCookie(ck)
	}
	if r.StatusCode != 303 || !flashShows(t, req, "startType") {
		t.Fatalf("a bad startType: %d, the page does not show the API's answer", r.StatusCode)
	}
}

// flashShows reports whether the page req asks (with the cookies a POST
// set) shows want.
func flashShows(t *testing.T, req *http.Request, want string) bool {
	t.Helper()
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return strings.Contains(string(b), want)
}

// TestPortalAdmitsLocalPagesOnly: loopback callers only, loopback Host
// only (no DNS rebinding), and no POST from another site's page.
func TestPortalAdmitsLocalPagesOnly(t *testing.T) {
	f := deploy(t)
	h := f.srv.Handler()
	for _, c := range []struct {
		name, method, remote, host string
		header                     map[string]string
		want                       int
	}{
		{"loopback", "GET", "127.0.0.1:5000", "127.0.0.1:5080", nil, 200},
		{"localhost", "GET", "[::1]:5000", "localhost:5080", nil, 200},
		{"remote caller", "GET", "192.0.2.7:5000", "127.0.0.1:5080", nil, 403},
		{"rebound host", "GET", "127.0.0.1:5000", "evil.example:5080", nil, 403},
		{"cross-site post", "POST", "127.0.0.1:5000", "127.0.0.1:5080", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"foreign origin", "POST", "127.0.0.1:5000", "127.0.0.1:5080", map[string]string{"Origin": "http://evil.example"}, 403},
	} {
		path := emulator.PortalPath
		if c.method == "POST" {
			path += "workspaces/" + f.ws + "/eventstreams/" + f.es + "/pause"
		}
		req, _ := http.NewRequest(c.method, "http://"+c.host+path, nil)
		req.RemoteAddr, req.Host = c.remote, c.host
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		rec := &recorder{header: http.Header{}}
		h.ServeHTTP(rec, req)
		if rec.status != c.want {
			t.Errorf("%s: %d, want %d", c.name, rec.status, c.want)
		}
	}
	if st := destinationStatus(f); st != "Running" {
		t.Fatalf("a refused cross-site pause paused the destination: %s", st)
	}
	// With --remote-tokens the portal is open to other hosts.
	g := deploy(t, emulator.WithRemoteTokens())
	req, _ := http.NewRequest("GET", "http://emulator:5080"+emulator.PortalPath, nil)
	req.RemoteAddr, req.Host = "192.0.2.7:5000", "emulator:5080"
	rec := &recorder{header: http.Header{}}
	g.srv.Handler().ServeHTTP(rec, req)
	if rec.status != 200 {
		t.Fatalf("remote caller with WithRemoteTokens: %d", rec.status)
	}
	// WithoutPortal: the path is an unknown route.
	e := start(t, emulator.WithoutPortal())
	r, err := http.Get(e.url + emulator.PortalPath)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 404 || !strings.Contains(string(b), "EndpointNotFound") {
		t.Fatalf("WithoutPortal: %d %s", r.StatusCode, b)
	}
}

// recorder is a minimal ResponseWriter.
type recorder struct {
	header http.Header
	status int
	body   strings.Builder
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = 200
	}
	return r.body.Write(b)
}
func (r *recorder) WriteHeader(code int) { r.status = code }

// TestPreviewStreamsRecords: the preview's event stream opens with the
// newest records, then sends each new one; bytes that are not text come
// quoted with their base64.
func TestPreviewStreamsRecords(t *testing.T) {
	f := deploy(t)
	f.produce(map[string]any{"key": "before", "value": map[string]any{"n": 1}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", f.esPage()+"/preview/"+f.ds, nil)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if r.StatusCode != 200 || r.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("preview: %d %s", r.StatusCode, r.Header.Get("Content-Type"))
	}
	records := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(r.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				_ = json.Unmarshal([]byte(d), &m)
				records <- m
			}
		}
		close(records)
	}()
	next := func() map[string]any {
		select {
		case m, ok := <-records:
			if !ok {
				t.Fatal("preview stream ended")
			}
			return m
		case <-time.After(5 * time.Second):
			t.Fatal("no record within 5 s")
		}
		return nil
	}
	if m := next(); m["key"].(map[string]any)["text"] != "before" {
		t.Fatalf("first record %v", m)
	}
	sent := time.Now()
	f.produce(map[string]any{"key": "after", "value": "<script>alert(1)</script>\x00", "headers": map[string]any{"h": "v"}})
	m := next()
	if d := time.Since(sent); d > 2*time.Second {
		t.Fatalf("a new record took %v to reach the preview", d)
	}
	v := m["value"].(map[string]any)
	if m["key"].(map[string]any)["text"] != "after" || v["kind"] != "binary" || v["base64"] == "" || strings.Contains(v["text"].(string), "\x00") {
		t.Fatalf("new record %v", m)
	}
	hs := m["headers"].([]any)
	if len(hs) != 1 || hs[0].(map[string]any)["key"] != "h" {
		t.Fatalf("headers %v", hs)
	}
	// A stranger cannot open the stream.
	req, _ = http.NewRequest("GET", f.esPage()+"/preview/"+f.ds, nil)
	req.AddCookie(&http.Cookie{Name: "fabric-portal-principal", Value: stranger})
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != 403 {
		t.Fatalf("a stranger's preview: %d", r2.StatusCode)
	}
}

// TestPortalPathsAreCanonical: a portal path with //, . or .. is answered
// as the API answers every such path, 400 InvalidPath, never a redirect.
func TestPortalPathsAreCanonical(t *testing.T) {
	e := start(t)
	for _, p := range []string{emulator.PortalPath + "/workspaces", emulator.PortalPath + "static/../static/portal.css"} {
		req, _ := http.NewRequest("GET", e.url+"/", nil)
		req.URL.Opaque = p // sent as is
		r, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != 400 || !strings.Contains(string(b), "InvalidPath") {
			t.Errorf("GET %s: %d %s", p, r.StatusCode, b)
		}
	}
	r, err := http.Get(e.url + strings.TrimSuffix(emulator.PortalPath, "/"))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 200 || r.Request.URL.Path != emulator.PortalPath {
		t.Fatalf("GET the portal without its slash: %d at %s", r.StatusCode, r.Request.URL.Path)
	}
}
