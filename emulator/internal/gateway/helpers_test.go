package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	embedded "github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

const (
	// connUser is the SASL PLAIN username Event Hubs expects.
	connUser = "$ConnectionString"
	// testTopic is the topic most grants allow; otherTopic exists upstream
	// but belongs to nobody in the tests unless granted explicitly.
	testTopic  = "es-orders"
	otherTopic = "es-other"
)

// testAuth is an Authenticator over a table of passwords, standing in for
// the emulator's connection-string check.
type testAuth struct {
	mu      sync.Mutex
	grants  map[string]Grant // password → grant
	panicOn string           // a password that makes the authenticator panic
}

func (a *testAuth) authenticate(_ context.Context, user, pass string) (Grant, error) {
	if user != connUser {
		return Grant{}, fmt.Errorf("username must be %s", connUser)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.panicOn != "" && pass == a.panicOn {
		panic("authenticator bug")
	}
	g, ok := a.grants[pass]
	if !ok {
		return Grant{}, errors.New("SharedAccessKey does not match any key of this Eventstream")
	}
	return g, nil
}

// add makes a connection string for g and lets it in.
func (a *testAuth) add(endpoint string, g Grant) string {
	pass := fmt.Sprintf("Endpoint=sb://%s/;SharedAccessKeyName=%s;SharedAccessKey=c2VjcmV0LSVz%s;EntityPath=%s", endpoint, g.KeyID, g.KeyID, g.Topic)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.grants[pass] = g
	return pass
}

// remove refuses a connection string from now on.
func (a *testAuth) remove(pass string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.grants, pass)
}

// logBuffer keeps the gateway's log lines for assertions and echoes them to
// the test log.
type logBuffer struct {
	t  testing.TB
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Logf("gateway: %s", bytes.TrimRight(p, "\n"))
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// env is a kfake cluster with a gateway in front of it. The cluster
// refuses compressed batches that do not decompress, as the emulator's
// embedded broker does (broker.CheckCompressedBatches).
type env struct {
	t       testing.TB
	cluster *kfake.Cluster
	gw      *Gateway
	auth    *testAuth
	logs    *logBuffer
}

func newEnv(t testing.TB, kopts ...kfake.Opt) *env {
	t.Helper()
	return newEnvWith(t, nil, kopts...)
}

// newEnvWith is newEnv with gateway options added to the test's own.
func newEnvWith(t testing.TB, gopts []Option, kopts ...kfake.Opt) *env {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(2, testTopic, otherTopic)}, kopts...)...)
	if err != nil {
		t.Fatalf("start kfake: %v", err)
	}
	t.Cleanup(c.Close)
	e := &env{t: t, cluster: c, auth: &testAuth{grants: map[string]Grant{}}, logs: &logBuffer{t: t}}
	log := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	embedded.CheckCompressedBatches(c, log)
	gw, err := New(c.ListenAddrs(), e.auth.authenticate, append([]Option{WithLogger(log)}, gopts...)...)
	if err != nil {
		t.Fatalf("new gateway: %v", err)
	}
	if err := gw.Start(); err != nil {
		t.Fatalf("start gateway: %v", err)
	}
	t.Cleanup(func() {
		if err := gw.Close(); err != nil {
			t.Errorf("close gateway: %v", err)
		}
	})
	e.gw = gw
	return e
}

// grant registers a key and returns its connection string.
func (e *env) grant(keyID, topic, prefix string) string {
	return e.auth.add(e.gw.Addr(), Grant{KeyID: keyID, Topic: topic, GroupPrefix: prefix})
}

// client is a franz-go client of the gateway authenticating with pass.
func (e *env) client(pass string, opts ...kgo.Opt) *kgo.Client {
	e.t.Helper()
	base := []kgo.Opt{
		kgo.SeedBrokers(e.gw.Addr()),
		kgo.SASL(plain.Auth{User: connUser, Pass: pass}.AsMechanism()),
		kgo.FetchMaxWait(200 * time.Millisecond),
		kgo.RetryTimeout(5 * time.Second),
		kgo.RecordDeliveryTimeout(10 * time.Second),
	}
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		e.t.Fatalf("new client: %v", err)
	}
	e.t.Cleanup(cl.Close)
	return cl
}

// direct is an admin client of kfake itself, bypassing the gateway.
func (e *env) direct() *kadm.Client {
	e.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...))
	if err != nil {
		e.t.Fatalf("new direct client: %v", err)
	}
	e.t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// testCtx is a context bounded well below the test timeout.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// makeRecords returns n records with distinct keys and values of varied
// sizes, some binary.
func makeRecords(topic, tag string, n int) []*kgo.Record {
	rs := make([]*kgo.Record, n)
	for i := range rs {
		v := []byte(fmt.Sprintf("%s-%04d|", tag, i))
		v = append(v, bytes.Repeat([]byte{byte(i), 0, 0xff, '\n'}, i*7%300)...)
		rs[i] = &kgo.Record{Topic: topic, Key: []byte(fmt.Sprintf("k%d", i)), Value: v}
	}
	return rs
}

// consume polls cl until it has n records or the context ends.
func consume(ctx context.Context, t *testing.T, cl *kgo.Client, n int) []*kgo.Record {
	t.Helper()
	var got []*kgo.Record
	for len(got) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consume: %d of %d records before %v", len(got), n, ctx.Err())
		}
		fs.EachError(func(topic string, p int32, err error) {
			t.Fatalf("consume %s/%d: %v", topic, p, err)
		})
		got = append(got, fs.Records()...)
	}
	return got
}

// sameRecords checks that got holds exactly the keys and values of want, in
// any order across partitions.
func sameRecords(t *testing.T, got, want []*kgo.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d", len(got), len(want))
	}
	m := map[string][]byte{}
	for _, r := range want {
		m[string(r.Key)] = r.Value
	}
	for _, r := range got {
		v, ok := m[string(r.Key)]
		if !ok {
			t.Fatalf("unexpected or duplicate record key %q", r.Key)
		}
		if !bytes.Equal(v, r.Value) {
			t.Fatalf("record %q: value of %d bytes differs from the %d produced", r.Key, len(r.Value), len(v))
		}
		delete(m, string(r.Key))
	}
}

// contains reports whether s contains every one of subs.
func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// kadmOffset is one partition's end offset.
type kadmOffset = kadm.ListedOffset

// kadmOf wraps a client in an admin client.
func kadmOf(cl *kgo.Client) *kadm.Client { return kadm.NewClient(cl) }

// sumOffsets adds up committed offsets.
func sumOffsets(offs kadm.OffsetResponses) int64 {
	var sum int64
	offs.Each(func(o kadm.OffsetResponse) {
		if o.Err == nil && o.At > 0 {
			sum += o.At
		}
	})
	return sum
}

// shortCtx is a context that ends after d.
func shortCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func itoa(port int32) string { return strconv.Itoa(int(port)) }

// oneBatch is a payload the gateway must never forward.
func oneBatch(*testing.T) []byte { return []byte("not a record batch: must not reach the broker") }
