package emulator_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/twmb/franz-go/pkg/kfake"
)

// testEnv is an emulator behind an httptest server, with a token for the
// default principal: the one HTTP client of the emulator's own tests.
type testEnv struct {
	t     testing.TB
	srv   *emulator.Server
	url   string
	token string
	// client sends the requests; nil is http.DefaultClient.
	client *http.Client
}

func startEnv(t testing.TB, opts ...emulator.Option) *testEnv {
	t.Helper()
	srv, err := emulator.New(opts...)
	if err != nil {
		t.Fatalf("start emulator: %v", err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.Close(); srv.Close() })
	tok, err := srv.Token("")
	if err != nil {
		t.Fatal(err)
	}
	return &testEnv{t: t, srv: srv, url: hs.URL, token: tok}
}

// resp is a decoded answer.
type resp struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// code is the Fabric errorCode of an error answer ("" otherwise).
func (r resp) code() string { s, _ := r.Body["errorCode"].(string); return s }

func (r resp) str(key string) string { s, _ := r.Body[key].(string); return s }

// call sends method path with body (marshalled unless []byte or string) and
// the given token ("" sends none).
func (e *testEnv) callAs(token, method, path string, body any) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	status, header, raw := e.send(token, method, path, rd)
	r := resp{Status: status, Header: header, Raw: raw}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			e.t.Fatalf("%s %s: answer is not a JSON object: %v: %s", method, path, err, raw)
		}
	}
	return r
}

// send sends one JSON request with token ("" sends none) and returns the
// status, the header and the whole answer, undecoded.
func (e *testEnv) send(token, method, path string, body io.Reader) (int, http.Header, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	client := e.client
	if client == nil {
		client = http.DefaultClient
	}
	hr, err := client.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer hr.Body.Close()
	raw, err := io.ReadAll(hr.Body)
	if err != nil {
		e.t.Fatalf("%s %s: read answer: %v", method, path, err)
	}
	return hr.StatusCode, hr.Header, raw
}

func (e *testEnv) call(method, path string, body any) resp {
	e.t.Helper()
	return e.callAs(e.token, method, path, body)
}

// must fails the test unless the answer has the wanted status.
func (e *testEnv) must(want int, r resp) resp {
	e.t.Helper()
	if r.Status != want {
		e.t.Fatalf("status %d, want %d: %s", r.Status, want, r.Raw)
	}
	return r
}

// wantError checks a Fabric error envelope: status, errorCode, the code
// mirrored in the header and a request id in body and header.
func (e *testEnv) wantError(r resp, status int, code string) {
	e.t.Helper()
	if r.Status != status || r.code() != code {
		e.t.Fatalf("got %d %q, want %d %q: %s", r.Status, r.code(), status, code, r.Raw)
	}
	if h := r.Header.Get("x-ms-public-api-error-code"); h != code {
		e.t.Fatalf("x-ms-public-api-error-code = %q, want %q", h, code)
	}
	if id := r.str("requestId"); id == "" || r.Header.Get("requestid") != id {
		e.t.Fatalf("requestId body %q header %q", id, r.Header.Get("requestid"))
	}
	if r.str("message") == "" {
		e.t.Fatalf("error without message: %s", r.Raw)
	}
}

// workspace creates a workspace and returns its id.
func (e *testEnv) workspace(name string) string {
	e.t.Helper()
	return e.must(201, e.call("POST", "/v1/workspaces", map[string]any{"displayName": name})).str("id")
}

// eventstream creates an Eventstream and returns its id and datasource id.
func (e *testEnv) eventstream(ws, name string) (id, ds string) {
	e.t.Helper()
	r := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": name}))
	streams := r.Body["properties"].(map[string]any)["streams"].([]any)
	return r.str("id"), streams[0].(map[string]any)["id"].(string)
}

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func sleep() { time.Sleep(20 * time.Millisecond) }

// columnTypes maps each column of a Delta snapshot to its type's name.
func columnTypes(snap *delta.Snapshot) map[string]string {
	types := map[string]string{}
	for _, f := range snap.Schema.Fields {
		types[f.Name] = f.Type.String()
	}
	return types
}

// eventstreamTemplate reads Microsoft's Eventstream definition template,
// which lives beside the checkout (../shared, never copied here). A missing
// template fails the test: the definition tests are about that file.
func eventstreamTemplate(t *testing.T) map[string]any {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "fabric-event-streams-template", "eventstream-definition.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("Microsoft's Eventstream template must be at %s (the shared/ folder beside the checkout): %v", path, err)
	}
	var full map[string]any
	if err := json.Unmarshal(raw, &full); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return full
}

// decodeAs decodes an answer into one of fabrictest's wire types (a job
// instance, a destination, a consume answer), failing the test otherwise.
func decodeAs[T any](t testing.TB, r resp) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.Raw, &v); err != nil {
		t.Fatalf("answer is not a %T: %v: %s", v, err, r.Raw)
	}
	return v
}

// listOf decodes the value list of a list answer into fabrictest's wire type.
func listOf[T any](t testing.TB, r resp) []T {
	t.Helper()
	return decodeAs[struct {
		Value []T `json:"value"`
	}](t, r).Value
}

// kafkaCluster starts a one-broker kfake cluster standing for a Kafka the
// test controls (closed after the emulators the test starts later), and
// returns it with its seed list for emulator.WithKafka.
func kafkaCluster(t testing.TB, opts ...kfake.Opt) (*kfake.Cluster, string) {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		t.Fatalf("start kfake: %v", err)
	}
	t.Cleanup(c.Close)
	return c, strings.Join(c.ListenAddrs(), ",")
}
