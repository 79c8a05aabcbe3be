package portal_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
)

// browserLike is a client that keeps cookies and follows redirects, as a
// browser does, acting as principal ("" the default).
func browserLike(t *testing.T, f *fixture, principal string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	if principal != "" {
		u, _ := url.Parse(f.url)
		jar.SetCookies(u, []*http.Cookie{{Name: "fabric-portal-principal", Value: principal, Path: emulator.PortalPath}})
	}
	return &http.Client{Jar: jar}
}

// post sends a portal form and returns the final page's URL path, status
// and body.
func post(t *testing.T, c *http.Client, rawURL string, form url.Values) (string, int, string) {
	t.Helper()
	r, err := c.PostForm(rawURL, form)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.Request.URL.Path, r.StatusCode, string(b)
}

// TestRecoveryFromThePage: a node resumes with Now and with a custom time
// from its own form, a destination binding is deleted from the page (one
// only the definition holds offers no Delete), and a POST
// the API refuses comes back to the Eventstream page with the API's
// answer shown once.
func TestRecoveryFromThePage(t *testing.T) {
	f := deploy(t)
	c := browserLike(t, f, "")
	esPath := emulator.PortalPath + "workspaces/" + f.ws + "/eventstreams/" + f.es
	node := f.esPage() + "/destinations/" + f.lake

	for _, form := range []url.Values{
		{"startType": {"Now"}},
		{"startType": {"CustomTime"}, "customTime": {"2026-01-02T03:04"}},
		{"startType": {"WhenLastStopped"}},
	} {
		if path, status, body := post(t, c, node+"/pause", nil); path != esPath || status != 200 || !strings.Contains(body, "Destination lake paused.") {
			t.Fatalf("pause: %s %d, notice shown: %v", path, status, strings.Contains(body, "paused."))
		}
		path, status, body := post(t, c, node+"/resume", form)
		if path != esPath || status != 200 || !strings.Contains(body, "Destination lake resumed.") {
			t.Fatalf("resume %v: %s %d: %s", form, path, status, body)
		}
		if st := destinationStatus(f); st != "Running" {
			t.Fatalf("after resume %v the destination is %s", form, st)
		}
	}
	_, _, body := post(t, c, node+"/pause", nil)
	for _, w := range []string{`value="Now"`, `value="WhenLastStopped"`, `value="CustomTime"`, `type="datetime-local"`, "Delete destination"} {
		if !strings.Contains(body, w) {
			t.Errorf("the page's recovery forms lack %q", w)
		}
	}

	// The custom endpoint destination is the definition's alone: no
	// Delete (the bindings route does not know it), and the page says how.
	if strings.Contains(body, `aria-label="Delete destination out"`) || !strings.Contains(body, "remove it with <code>updateDefinition</code>") {
		t.Error("the definition's custom endpoint destination offers Delete, or the page does not say how it goes")
	}

	// A refusal: the Viewer's resume comes back to the page, which shows
	// the API's code and message once.
	v := browserLike(t, f, viewer)
	path, status, body := post(t, v, node+"/resume", url.Values{"startType": {"Now"}})
	if path != esPath || status != 200 || !strings.Contains(body, "InsufficientPrivileges") || !strings.Contains(body, "Pause lake") {
		t.Fatalf("the Viewer's resume: %s %d: %s", path, status, body)
	}
	if !strings.Contains(body, `role="alert"`) {
		t.Fatal("the refusal is not an alert")
	}
	if _, body := getWith(t, v, f.esPage()); strings.Contains(body, "InsufficientPrivileges") {
		t.Fatal("the refusal shows again on the next visit")
	}
	_, _, body = post(t, c, node+"/resume", url.Values{"startType": {"CustomTime"}, "customTime": {"yesterday"}})
	if !strings.Contains(body, "customTime") || !strings.Contains(body, "InvalidInput") {
		t.Fatalf("a bad custom time: %s", body)
	}
	_, _, body = post(t, c, node+"/resume", url.Values{"startType": {"Sometime"}})
	if !strings.Contains(body, "startType") || !strings.Contains(body, `role="alert"`) {
		t.Fatalf("a bad startType: %s", body)
	}

	// Delete a destination from the page.
	path, status, body = post(t, c, node+"/delete", nil)
	if path != esPath || status != 200 || !strings.Contains(body, "Destination lake deleted.") {
		t.Fatalf("delete: %s %d: %s", path, status, body)
	}
	if strings.Contains(body, `aria-label="Pause lake"`) {
		t.Fatal("the page still shows the deleted destination")
	}
	f.api(f.token, "GET", f.esPath+"/destinations/"+f.lake, nil, 404)
	if _, _, body := post(t, c, f.esPage()+"/sources/"+f.src+"/delete", nil); !strings.Contains(body, "EndpointNotFound") {
		t.Fatalf("deleting a source: %s", body)
	}
}

// getWith fetches a page with c and returns its status and body.
func getWith(t *testing.T, c *http.Client, rawURL string) (int, string) {
	t.Helper()
	r, err := c.Get(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, string(b)
}
