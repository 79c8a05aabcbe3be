package fabrictest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// fakeTB records what a helper reports instead of failing the real test.
// Methods it does not override panic (the embedded TB is nil).
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	fatal    string
	errors   []string
	cleanups []func()
}

func (f *fakeTB) Helper()             {}
func (f *fakeTB) Logf(string, ...any) {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.fatal = fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}
func (f *fakeTB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

// failureOf runs fn with a fakeTB (in a goroutine, as Fatalf exits it),
// runs the cleanups fn registered, and returns the Fatalf message, "" if
// none.
func failureOf(fn func(t testing.TB)) string {
	f := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
	return f.fatal
}

func TestStart(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)

	g.Expect(env.URL).To(HavePrefix("http://127.0.0.1:"))
	g.Expect(env.KafkaBootstrap()).NotTo(BeEmpty())
	g.Expect(env.KafkaBackend()).To(Equal(expectedBackend()))
	g.Expect(env.Principal()).To(Equal(fabrictest.DefaultPrincipal))
	t.Log(env)

	// A real HTTP server: a plain client with the token reaches it.
	req, _ := http.NewRequest("GET", env.URL+"/v1/workspaces", nil)
	req.Header.Set("Authorization", "Bearer "+env.Token())
	resp, err := http.DefaultClient.Do(req)
	g.Expect(err).NotTo(HaveOccurred())
	resp.Body.Close()
	g.Expect(resp.StatusCode).To(Equal(200))

	// Client adds the token by itself.
	resp, err = env.Client().Get(env.URL + "/v1/workspaces")
	g.Expect(err).NotTo(HaveOccurred())
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	g.Expect(resp.StatusCode).To(Equal(200), string(body))

	// Tokens are cached per principal and differ between principals.
	g.Expect(env.Token()).To(Equal(env.Token()))
	g.Expect(env.Token("bob")).NotTo(Equal(env.Token()))
	g.Expect(env.As("bob").Token()).To(Equal(env.Token("bob")))
}

// expectedBackend is the backend FABRICTEST_KAFKA asks for.
func expectedBackend() string {
	switch v := os.Getenv(fabrictest.KafkaEnv); v {
	case "", fabrictest.KafkaContainer:
		return fabrictest.KafkaContainer
	case fabrictest.KafkaEmbedded:
		return fabrictest.KafkaEmbedded
	default:
		return "external"
	}
}

func TestBadOptionStartsNothing(t *testing.T) {
	t.Parallel()
	for name, opt := range map[string]fabrictest.Option{
		"kafka spec":  fabrictest.WithKafka("nohost"),
		"kafka none":  fabrictest.WithKafka("none"),
		"partitions":  fabrictest.WithPartitions(0),
		"empty image": fabrictest.WithKafkaImage(" "),
		"timeout":     fabrictest.WithStartupTimeout(-time.Second),
	} {
		msg := failureOf(func(tb testing.TB) { fabrictest.Start(tb, opt) })
		if msg == "" || !strings.HasPrefix(msg, "fabrictest: ") {
			t.Errorf("%s: Start did not fail as it should: %q", name, msg)
		}
		t.Logf("%s: %s", name, msg)
	}
}

func TestKafkaEnvIsValidated(t *testing.T) {
	t.Setenv(fabrictest.KafkaEnv, "not-a-backend")
	msg := failureOf(func(tb testing.TB) { fabrictest.Start(tb) })
	if !strings.Contains(msg, "FABRICTEST_KAFKA=\"not-a-backend\"") {
		t.Fatalf("Start with a bad FABRICTEST_KAFKA: %q", msg)
	}
}

func TestHelperFailureNamesErrorCode(t *testing.T) {
	t.Parallel()
	env := fabrictest.Start(t)
	es := env.Workspace("ws").Eventstream("es")
	bad := env.WorkspaceRef(es.WorkspaceID).EventstreamRef("00000000-0000-0000-0000-00000000dead", es.DatasourceID)

	msg := failureOf(func(tb testing.TB) { fabrictest.WithT(bad, tb).Consume() })
	t.Log(msg)
	for _, want := range []string{"consume eventstream 00000000-0000-0000-0000-00000000dead", "404 ItemNotFound", "requestId"} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure message lacks %q:\n%s", want, msg)
		}
	}

	msg = failureOf(func(tb testing.TB) { env.WithT(tb).WorkspaceRef("nope").Eventstream("x") })
	if !strings.Contains(msg, "WorkspaceNotFound") {
		t.Errorf("failure message lacks WorkspaceNotFound:\n%s", msg)
	}
}

func TestWrongIDs(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	es := env.Workspace("ws").Eventstream("es")
	const nope = "00000000-0000-0000-0000-00000000dead"

	_, err := env.WorkspaceRef(es.WorkspaceID).EventstreamRef(nope, es.DatasourceID).TryResolve()
	g.Expect(err).To(fabrictest.HaveErrorCode("ItemNotFound"))
	g.Expect(fabrictest.ErrorCode(err)).To(Equal("ItemNotFound"))
	var ae *fabrictest.APIError
	g.Expect(err).To(BeAssignableToTypeOf(ae))
	ae = err.(*fabrictest.APIError)
	g.Expect(ae.Status).To(Equal(404))
	g.Expect(ae.RelatedResource).NotTo(BeNil())
	g.Expect(ae.RelatedResource.ResourceID).To(Equal(nope))

	_, err = env.WorkspaceRef(es.WorkspaceID).EventstreamRef(nope, es.DatasourceID).TryConsume()
	g.Expect(err).To(fabrictest.HaveErrorCode("ItemNotFound"))
	_, err = env.WorkspaceRef(es.WorkspaceID).EventstreamRef(es.ID, nope).TryRecords()
	g.Expect(err).To(fabrictest.HaveErrorCode("DatasourceNotFound"))
	_, err = env.WorkspaceRef(es.WorkspaceID).EventstreamRef(nope, es.DatasourceID).TryProduce("x")
	g.Expect(err).To(fabrictest.HaveErrorCode("ItemNotFound"))
}

// TestRefsAndLookups holds the naming rule: a …Ref calls no API and so
// cannot fail, a …ByID looks the item up and its Try form returns the error.
func TestRefsAndLookups(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	ws := env.Workspace("ws")
	es := ws.Eventstream("es")
	const nope = "00000000-0000-0000-0000-00000000dead"

	ref := env.WorkspaceRef(ws.ID)
	g.Expect(ref.ID).To(Equal(ws.ID))
	byRef := ref.EventstreamRef(es.ID, es.DatasourceID)
	g.Expect([]string{byRef.WorkspaceID, byRef.ID, byRef.Topic}).To(Equal([]string{es.WorkspaceID, es.ID, es.Topic}))
	g.Expect(byRef.Records()).To(BeEmpty())

	got := ref.EventstreamByID(es.ID)
	g.Expect(got.Name).To(Equal("es"))
	g.Expect(got.Topic).To(Equal(es.Topic))
	g.Expect(got.DatasourceID).To(Equal(es.DatasourceID))

	_, err := ref.TryEventstreamByID(nope)
	g.Expect(err).To(fabrictest.HaveErrorCode("ItemNotFound"))
	msg := failureOf(func(tb testing.TB) { fabrictest.WithT(ref, tb).EventstreamByID(nope) })
	g.Expect(msg).To(ContainSubstring("ItemNotFound"))
}

func TestRoles(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	ws := env.Workspace("ws")
	es := ws.Eventstream("es")

	// A stranger sees nothing.
	_, err := fabrictest.As(es, "stranger").TryConsume()
	g.Expect(err).To(fabrictest.HaveErrorCode("InsufficientPrivileges"))

	ws.Grant("viewer", fabrictest.Viewer)
	_, err = fabrictest.As(es, "viewer").TryProduce(map[string]any{"n": 1})
	g.Expect(err).To(fabrictest.HaveErrorCode("InsufficientPrivileges"))
	g.Expect(err.(*fabrictest.APIError).Status).To(Equal(403))
	g.Expect(fabrictest.As(es, "viewer").Consume()).To(BeEmpty()) // Viewers read

	ws.Grant("contributor", fabrictest.Contributor)
	fabrictest.As(es, "contributor").Produce(map[string]any{"n": 1})
	g.Expect(fabrictest.As(es, "viewer").Consume()).To(fabrictest.HaveRecordCount(1))

	// A Viewer cannot grant; the error names the code.
	g.Expect(fabrictest.As(ws, "viewer").TryGrant("eve", fabrictest.Viewer)).To(fabrictest.HaveErrorCode("InsufficientPrivileges"))

	// WithPrincipal and As agree on names.
	g.Expect(fabrictest.PrincipalID("viewer")).To(Equal(env.As("viewer").Principal()))
	g.Expect(fabrictest.PrincipalID("00000000-0000-0000-0000-00000000A11C")).To(Equal(fabrictest.DefaultPrincipal))
}

func TestCall(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	ws := env.Workspace("ws")

	r := env.Call("GET", "/v1/workspaces/"+ws.ID, nil)
	var body map[string]any
	g.Expect(r.Decode(&body)).To(Succeed())
	g.Expect(body).To(HaveKeyWithValue("displayName", "ws"))
	g.Expect(r.RequestID).NotTo(BeEmpty())

	r, err := env.TryCall("POST", "/v1/workspaces/"+ws.ID+"/items", map[string]any{"displayName": "nb", "type": "Nope"})
	g.Expect(err).To(HaveOccurred())
	g.Expect(r.Status).To(Equal(400))
	t.Log(err)
}

// Subtests use the parent's environment through WithT.
func TestSubtestsShareEnv(t *testing.T) {
	t.Parallel()
	env := fabrictest.Start(t)
	ws := env.Workspace("ws")
	for i := range 3 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			es := fabrictest.WithT(ws, t).Eventstream(fmt.Sprint("es-", i))
			es.ProduceJSON(i)
			NewWithT(t).Expect(es.Consume()).To(fabrictest.HaveRecordsWithValues(json.RawMessage(fmt.Sprint(i))))
		})
	}
}

// TestNoDockerFailsWithHint runs Start in a child process whose Docker host
// does not exist: the test must fail (not skip) and name
// FABRICTEST_KAFKA=embedded.
func TestNoDockerFailsWithHint(t *testing.T) {
	if os.Getenv("FABRICTEST_CHILD_NO_DOCKER") == "1" {
		fabrictest.Start(t, fabrictest.WithKafka(fabrictest.KafkaContainer), fabrictest.WithDedicatedKafka())
		t.Log("Start returned without Docker")
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoDockerFailsWithHint$", "-test.v", "-test.count=1")
	// testcontainers falls back to the default socket whatever DOCKER_HOST
	// says; TLS settings that cannot be loaded make every candidate fail.
	cmd.Env = append(os.Environ(), "FABRICTEST_CHILD_NO_DOCKER=1", "DOCKER_HOST=unix:///nonexistent/docker.sock",
		"DOCKER_TLS_VERIFY=1", "DOCKER_CERT_PATH=/nonexistent")
	out, err := cmd.CombinedOutput()
	t.Logf("child output:\n%s", out)
	if err == nil {
		t.Fatal("the child test passed without Docker")
	}
	for _, want := range []string{"--- FAIL: TestNoDockerFailsWithHint", "FABRICTEST_KAFKA=embedded"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child output lacks %q", want)
		}
	}
	if strings.Contains(string(out), "--- SKIP") {
		t.Error("the child test skipped")
	}
}
