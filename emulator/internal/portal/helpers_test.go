package portal_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/delta"
)

// env is an emulator (embedded broker) behind an httptest server on
// loopback, with the default principal's token.
type env struct {
	t     testing.TB
	srv   *emulator.Server
	url   string
	token string
}

func start(t testing.TB, opts ...emulator.Option) *env {
	t.Helper()
	srv, err := emulator.New(opts...)
	if err != nil {
		t.Fatalf("start emulator: %v", err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close(); srv.Close() })
	tok, err := srv.Token("")
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, srv: srv, url: hs.URL, token: tok}
}

// api sends a JSON request as token and decodes the answer into a map;
// it fails the test unless the status is want.
func (e *env) api(token, method, path string, body any, want int) map[string]any {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer r.Body.Close()
	raw, _ := io.ReadAll(r.Body)
	if r.StatusCode != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.StatusCode, want, raw)
	}
	out := map[string]any{}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &out)
	}
	return out
}

// fixture is a workspace with an Eventstream (a CustomEndpoint source into
// the DefaultStream, read by a CustomEndpoint destination and a
// Lakehouse destination committing every batch), its Lakehouse, and a
// Reflex whose trigger runs a job on the Lakehouse.
type fixture struct {
	*env
	ws, es, ds, lh, rf  string
	src, out, lake      string
	esPath, producePath string
}

// viewer and stranger are principals of the tests: a Viewer of the
// fixture's workspace, and one with no role anywhere.
const (
	viewer   = "11111111-1111-1111-1111-111111111111"
	stranger = "22222222-2222-2222-2222-222222222222"
)

func deploy(t testing.TB, opts ...emulator.Option) *fixture {
	e := start(t, opts...)
	f := &fixture{env: e}
	f.ws = e.api(e.token, "POST", "/v1/workspaces", map[string]any{"displayName": "demo"}, 201)["id"].(string)
	e.api(e.token, "POST", "/v1/workspaces/"+f.ws+"/roleAssignments", map[string]any{"principal": map[string]any{"id": viewer, "type": "User"}, "role": "Viewer"}, 201)
	f.lh = e.api(e.token, "POST", "/v1/workspaces/"+f.ws+"/lakehouses", map[string]any{"displayName": "sales"}, 201)["id"].(string)
	topo := map[string]any{
		"sources": []any{map[string]any{"name": "app", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{map[string]any{"name": "orders-stream", "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": []any{map[string]any{"name": "app"}}}},
		"destinations": []any{
			map[string]any{"name": "out", "type": "CustomEndpoint", "properties": map[string]any{}, "inputNodes": []any{map[string]any{"name": "orders-stream"}}},
			map[string]any{"name": "lake", "type": "Lakehouse", "properties": map[string]any{"workspaceId": f.ws, "itemId": f.lh, "deltaTable": "orders", "minimumRows": 1}, "inputNodes": []any{map[string]any{"name": "orders-stream"}}},
		},
	}
	b64 := func(v any) string { j, _ := json.Marshal(v); return base64.StdEncoding.EncodeToString(j) }
	def := map[string]any{"parts": []any{
		map[string]any{"path": "eventstream.json", "payload": b64(topo), "payloadType": "InlineBase64"},
		map[string]any{"path": "eventstreamProperties.json", "payload": b64(map[string]any{"retentionTimeInDays": 1, "eventThroughputLevel": "Low"}), "payloadType": "InlineBase64"},
	}}
	es := e.api(e.token, "POST", "/v1/workspaces/"+f.ws+"/eventstreams", map[string]any{"displayName": "orders", "definition": def}, 201)
	f.es = es["id"].(string)
	f.ds = es["properties"].(map[string]any)["streams"].([]any)[0].(map[string]any)["id"].(string)
	f.esPath = "/v1/workspaces/" + f.ws + "/eventstreams/" + f.es
	tp := e.api(e.token, "GET", f.esPath+"/topology", nil, 200)
	f.src = nodeID(t, tp, "sources", "app")
	f.out = nodeID(t, tp, "destinations", "out")
	f.lake = nodeID(t, tp, "destinations", "lake")
	f.producePath = f.esPath + "/sources/" + f.ds + "/events"
	f.rf = e.api(e.token, "POST", "/v1/workspaces/"+f.ws+"/reflexes", map[string]any{"displayName": "alerts"}, 201)["id"].(string)
	e.api(e.token, "POST", "/v1/workspaces/"+f.ws+"/reflexes/"+f.rf+"/triggers", map[string]any{
		"displayName": "on-order", "enabled": true, "eventType": "Microsoft.Fabric.Eventstream.EventReceived",
		"source": map[string]any{"itemId": f.es}, "action": map[string]any{"itemId": f.lh, "jobType": "TableMaintenance"}}, 201)
	return f
}

// nodeID finds a topology node's id by name.
func nodeID(t testing.TB, tp map[string]any, list, name string) string {
	t.Helper()
	for _, n := range tp[list].([]any) {
		if m := n.(map[string]any); m["name"] == name {
			return m["id"].(string)
		}
	}
	t.Fatalf("topology has no %s named %s: %v", list, name, tp)
	return ""
}

// produce sends events through the Custom HTTP source.
func (f *fixture) produce(events ...map[string]any) {
	f.t.Helper()
	evs := make([]any, len(events))
	for i, ev := range events {
		evs[i] = ev
	}
	f.api(f.token, "POST", f.producePath, map[string]any{"events": evs}, 200)
}

// portal is the fixture's page URL under the portal.
func (f *fixture) portal(path string) string { return f.url + emulator.PortalPath + path }

// esPage, tablePage, … are the portal's pages of the fixture.
func (f *fixture) esPage() string { return f.portal("workspaces/" + f.ws + "/eventstreams/" + f.es) }
func (f *fixture) tablePage() string {
	return f.portal("workspaces/" + f.ws + "/lakehouses/" + f.lh + "/tables/orders")
}

// waitRows waits until the orders table holds n rows (10 s at most).
func (f *fixture) waitRows(n int) {
	f.t.Helper()
	tables := f.api(f.token, "GET", "/v1/workspaces/"+f.ws+"/lakehouses/"+f.lh+"/tables", nil, 200)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := -1
		if data, _ := tables["data"].([]any); len(data) == 1 {
			if snap, err := delta.ReadTable(data[0].(map[string]any)["location"].(string)); err == nil {
				got = len(snap.Rows)
			}
		}
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("the orders table holds %d rows after 10 s, want %d", got, n)
		}
		time.Sleep(50 * time.Millisecond)
		tables = f.api(f.token, "GET", "/v1/workspaces/"+f.ws+"/lakehouses/"+f.lh+"/tables", nil, 200)
	}
}
