package portal_test

import (
	"fmt"
	"html"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestReflexPageShowsConditionAndFailureReason: a trigger's condition is
// shown, a Failed job instance shows its failure reason's code and
// message, and items are named, not shown as GUIDs.
func TestReflexPageShowsConditionAndFailureReason(t *testing.T) {
	f := deploy(t)
	nb := f.api(f.token, "POST", "/v1/workspaces/"+f.ws+"/items", map[string]any{"displayName": "scorer", "type": "Notebook"}, 201)["id"].(string)
	f.api(f.token, "POST", "/v1/workspaces/"+f.ws+"/reflexes/"+f.rf+"/triggers", map[string]any{
		"displayName": "big-order", "eventType": "Microsoft.Fabric.Eventstream.EventReceived",
		"source":    map[string]any{"itemId": f.es},
		"condition": map[string]any{"field": "amount", "op": "gt", "value": 100},
		"action":    map[string]any{"itemId": nb, "jobType": "RunNotebook"}}, 201)
	f.api(f.token, "POST", "/v1/workspaces/"+f.ws+"/items/"+nb+"/jobs/RunNotebook/instances", nil, 202)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, body := getPage(t, f.portal("workspaces/"+f.ws+"/reflexes/"+f.rf), "")
		if strings.Contains(body, "NoJobRunner") || time.Now().After(deadline) {
			for _, w := range []string{"NoJobRunner", "big-order", html.EscapeString(`"op": "gt"`), "Every event", "scorer", ">orders<", ">sales<"} {
				if !strings.Contains(body, w) {
					t.Errorf("the Reflex page lacks %q", w)
				}
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestConnectionPageAndUnknownPaths: the connection page is titled with
// the node's name; an unknown portal path answers the portal's own 404
// page; a native Eventstream fed through the API's produce route says
// where its events come from.
func TestConnectionPageAndUnknownPaths(t *testing.T) {
	f := deploy(t)
	if _, body := getPage(t, f.esPage()+"/sources/"+f.src+"/connection", ""); !strings.Contains(body, "<h1>Connection of source app</h1>") {
		t.Fatalf("connection page title: %s", body)
	}
	r, err := http.Get(f.portal("no/such/page"))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	status, body := getPage(t, f.portal("no/such/page"), "")
	if status != 404 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !strings.Contains(body, "EndpointNotFound") || !strings.Contains(body, "fabrictest portal") {
		t.Fatalf("unknown path: %d %s: %s", status, r.Header.Get("Content-Type"), body)
	}
	f.produce(map[string]any{"value": map[string]any{"amount": 1.5}})
	f.produce(map[string]any{"value": "no column in common"}) // a warning in the logs
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, body := getPage(t, f.esPage()+"/logs", "")
		if strings.Contains(body, `<td class="nowrap"><time datetime=`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("log times may wrap: %s", body)
		}
	}
	es := f.api(f.token, "POST", "/v1/workspaces/"+f.ws+"/eventstreams", map[string]any{"displayName": "native"}, 201)["id"].(string)
	_, body = getPage(t, f.portal("workspaces/"+f.ws+"/eventstreams/"+es), "")
	if !strings.Contains(body, "produce route") {
		t.Fatalf("a native Eventstream's Sources: %s", body)
	}
}

// TestWorkspacePageListsEveryItem: past the API's page of 100, the
// workspace page follows the continuation token and lists every item.
func TestWorkspacePageListsEveryItem(t *testing.T) {
	f := deploy(t)
	for i := range 105 {
		f.api(f.token, "POST", "/v1/workspaces/"+f.ws+"/items", map[string]any{"displayName": fmt.Sprintf("nb-%03d", i), "type": "Notebook"}, 201)
	}
	_, body := getPage(t, f.portal("workspaces/"+f.ws), "")
	for _, w := range []string{"nb-000", "nb-104", ">orders<", ">sales<", ">alerts<"} {
		if !strings.Contains(body, w) {
			t.Errorf("the workspace page lacks %q", w)
		}
	}
}
