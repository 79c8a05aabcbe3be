package fabrictest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/eventhouse"
	"github.com/fabrictest/fabrictest/fixtures/kafka"
	"github.com/fabrictest/fabrictest/kustofake"
)

// signingKey is the token signing key shared by the environments of a
// test binary that keep no data dir.
var signingKey = sync.OnceValues(func() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) })

// Env is a running environment: the emulator serving HTTP on a free
// loopback port and the Kafka broker behind it. Its helpers act as one
// principal (DefaultPrincipal unless WithPrincipal or As says otherwise)
// and report failures to the testing.TB given to Start.
//
// An Env is safe for concurrent use. As, WithT and WithContext return views
// of the same environment that differ only in who acts, which test is told
// about failures, and which context bounds the calls.
type Env struct {
	// URL is the emulator's base URL, such as http://127.0.0.1:41234 (like
	// httptest.Server.URL; https:// with WithTLS). Fabric's REST API lives
	// under URL + "/v1".
	URL string

	c         *core
	t         tb
	ctx       context.Context
	principal string
}

// core is what every view of one environment shares.
type core struct {
	cfg     config
	srv     *emulator.Server
	backend string         // KafkaContainer, KafkaEmbedded or "external"
	shared  bool           // the broker is SharedKafka's
	cluster *kafka.Cluster // WithKafkaCluster's
	http    *http.Client

	mu     sync.Mutex
	tokens map[string]string // principal → token
	adm    *kadm.Client      // lazily, for awaitTopic

	kql    *eventhouse.Client // lazily (under mu), for KustoRows
	kusto  *kustofake.Server  // WithKustoFake's engine
	kqlURL string             // the Kusto engine attached, if any

	closeMu sync.Mutex
	closers []func() error // run in reverse order
	closed  bool
}

// tb is the part of testing.TB the helpers use. Start binds a testing.TB;
// New binds panicking, so that a helper outside a test fails loudly.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// panicking reports failures by panicking with the message t.Fatalf would
// have printed.
type panicking struct{}

// Helper does nothing: there is no test to point at.
func (panicking) Helper() {}

// Fatalf panics with the message.
func (panicking) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// Start boots an environment for the test t and registers its teardown with
// t.Cleanup: the emulator in-process on a free loopback port, with Kafka
// chosen by WithKafka or FABRICTEST_KAFKA (a container by default; see
// SharedKafka to share one container per test binary). It fails the test
// (never skips it) when the environment cannot start, for instance without
// Docker, with a message that names FABRICTEST_KAFKA=embedded.
//
//	func TestOrders(t *testing.T) {
//		env := fabrictest.Start(t)
//		es := env.Workspace("sales").Eventstream("orders")
//		es.ProduceJSON(map[string]any{"id": 1})
//		if got := es.Records(); len(got) != 1 { … }
//	}
//
// Environments are independent: tests that call Start may run in parallel.
func Start(t testing.TB, opts ...Option) *Env {
	t.Helper()
	e, err := newEnv(opts, func(c *core) {
		// Registered before anything starts, so a failure half-way still
		// releases what was started.
		t.Cleanup(func() {
			if err := c.close(); err != nil {
				t.Errorf("fabrictest: tear down: %v", err)
			}
		})
	})
	if err != nil {
		t.Fatalf("fabrictest: %v", err)
	}
	e.t = t
	return e
}

// New boots an environment outside a test (TestMain, a benchmark harness, a
// runnable example or a program) and returns it; call Close when done. Its
// helpers panic where, under Start, they would fail the test. ctx bounds the
// calls the helpers make (Env.WithContext changes it), not the environment's
// life.
func New(ctx context.Context, opts ...Option) (*Env, error) {
	var c *core
	e, err := newEnv(opts, func(cc *core) { c = cc })
	if err != nil {
		if c != nil {
			err = errors.Join(err, c.close())
		}
		return nil, err
	}
	e.ctx = ctx
	return e, nil
}

// Close shuts the emulator down and stops the Kafka container the
// environment owns (a shared one keeps running until SharedKafka returns).
// Start calls it through t.Cleanup; calling it again does nothing. It closes
// every view of the environment.
func (e *Env) Close() error { return e.c.close() }

// newEnv validates the options, hands the core to register (which arranges
// its teardown) and starts Kafka and the emulator.
func newEnv(opts []Option, register func(*core)) (*Env, error) {
	cfg := defaults()
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.kafka == "" {
		spec, source, err := kafkaFromEnv()
		if err != nil {
			return nil, err
		}
		cfg.kafka, cfg.kafkaSource = spec, source
	}
	c := &core{cfg: cfg, tokens: map[string]string{}}
	register(c)

	ctx, cancel := context.WithTimeout(context.Background(), cfg.startupTimeout)
	defer cancel()
	bootstrap, err := c.startKafka(ctx)
	if err != nil {
		return nil, err
	}
	eopts := []emulator.Option{emulator.WithKafka(bootstrap), emulator.WithPartitions(cfg.partitions)}
	kopts, err := c.startKusto()
	if err != nil {
		return nil, err
	}
	eopts = append(eopts, kopts...)
	if cfg.dataDir != "" {
		eopts = append(eopts, emulator.WithDataDir(cfg.dataDir))
	} else if key, err := signingKey(); err == nil {
		// One RSA key per test binary: generating one is most of an
		// embedded start. Tokens of one env are then valid in another of
		// the same binary, which tests of a single system never notice.
		eopts = append(eopts, emulator.WithSigningKey(key))
	}
	srv, err := emulator.New(append(eopts, cfg.emulatorOpts...)...)
	if err != nil {
		return nil, fmt.Errorf("start emulator: %w", err)
	}
	c.srv = srv
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("start emulator: listen on loopback: %w", err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	tr := &http.Transport{
		Proxy:               nil, // always loopback: never through HTTP_PROXY
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     30 * time.Second,
		TLSClientConfig:     c.tlsConfig(), // nil without WithTLS
	}
	c.http = &http.Client{Transport: tr}
	c.addCloser(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := srv.Shutdown(ctx)
		tr.CloseIdleConnections()
		return errors.Join(err, <-served)
	})
	return &Env{
		URL:       srv.Scheme() + "://" + ln.Addr().String(),
		c:         c,
		t:         panicking{},
		ctx:       context.Background(),
		principal: cfg.principal,
	}, nil
}

// addCloser registers a teardown step; steps run in reverse order.
func (c *core) addCloser(f func() error) {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	c.closers = append(c.closers, f)
}

func (c *core) close() error {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	var errs []error
	for i := len(c.closers) - 1; i >= 0; i-- {
		errs = append(errs, c.closers[i]())
	}
	c.closers = nil
	return errors.Join(errs...)
}

// As returns a view of the environment that acts as principal: a GUID, or a
// name turned into one by PrincipalID. The principal sees only the
// workspaces it has a role in; grant one with Workspace.Grant.
//
//	ws.Grant("bob", fabrictest.Viewer)
//	_, err := fabrictest.As(es, "bob").TryProduceJSON(1) // 403 InsufficientPrivileges
func (e *Env) As(principal string) *Env {
	v := *e
	v.principal = PrincipalID(principal)
	return &v
}

// WithT returns a view of the environment that reports failures to t, for
// subtests (t.Run) that use an environment started by their parent.
func (e *Env) WithT(t testing.TB) *Env {
	v := *e
	v.t = t
	return &v
}

// WithContext returns a view of the environment whose calls are bounded by
// ctx as well as by the call timeout, such as a ginkgo SpecContext.
func (e *Env) WithContext(ctx context.Context) *Env {
	v := *e
	v.ctx = ctx
	return &v
}

// Principal is the oid the environment acts as.
func (e *Env) Principal() string { return e.principal }

// Token returns a bearer token the emulator accepts, for principal (a GUID or
// a name, see PrincipalID) or, without one, for the principal the
// environment acts as. Tokens are valid for an hour and cached.
func (e *Env) Token(principal ...string) string {
	e.t.Helper()
	p := e.principal
	if len(principal) > 0 && principal[0] != "" {
		p = PrincipalID(principal[0])
	}
	tok, err := e.tryToken(p)
	if err != nil {
		e.t.Fatalf("fabrictest: %v", err)
	}
	return tok
}

func (e *Env) tryToken(principal string) (string, error) {
	c := e.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if tok, ok := c.tokens[principal]; ok {
		return tok, nil
	}
	if c.srv == nil {
		return "", errors.New("mint token: the environment did not start")
	}
	tok, err := c.srv.Token(principal)
	if err != nil {
		return "", fmt.Errorf("mint token for %s: %w", principal, err)
	}
	c.tokens[principal] = tok
	return tok, nil
}

// Client returns an *http.Client for the code under test: requests to URL
// carry the environment principal's bearer token unless they set their own
// Authorization header; requests elsewhere are sent untouched.
func (e *Env) Client() *http.Client {
	return &http.Client{Transport: &authTransport{env: e, base: e.c.http.Transport}}
}

type authTransport struct {
	env  *Env
	base http.RoundTripper
}

// RoundTrip adds the bearer token to requests for the emulator.
func (a *authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Authorization") == "" && r.URL.Scheme+"://"+r.URL.Host == a.env.URL {
		tok, err := a.env.tryToken(a.env.principal)
		if err != nil {
			return nil, err
		}
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	return a.base.RoundTrip(r)
}

// KafkaBootstrap returns the bootstrap servers of the broker behind the
// emulator, as a Kafka client in the test process dials them (the same list
// the Spark resolve route answers).
func (e *Env) KafkaBootstrap() []string { return e.c.srv.KafkaBootstrap() }

// AMQPEndpoint is the host:port of the custom endpoint's own Event Hubs
// listener (AMQP 1.0, a free loopback port); "" when it is off
// (emulator.WithAMQPEndpoint("off") through WithEmulatorOptions) or there
// is no broker. Connection strings name the Kafka endpoint in their
// Endpoint, which takes AMQP too, unless both are on their default ports.
func (e *Env) AMQPEndpoint() string { return e.c.srv.AMQPEndpoint() }

// KafkaBackend is the backend in use: "container", "embedded" or "external"
// (a host:port list).
func (e *Env) KafkaBackend() string { return e.c.backend }

// Server returns the emulator itself, for what the helpers do not cover.
func (e *Env) Server() *emulator.Server { return e.c.srv }

// String describes the environment for logs.
func (e *Env) String() string {
	return fmt.Sprintf("fabrictest env at %s (kafka %s %s)", e.URL, e.c.backend, strings.Join(e.KafkaBootstrap(), ","))
}
