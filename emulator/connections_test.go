package emulator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/fabrictest"
	"github.com/fabrictest/fabrictest/internal/testclients"
)

// endpointTopology: a CustomEndpoint source into the DefaultStream, read
// by a CustomEndpoint destination and a Lakehouse.
func endpointTopology(ws, lh string) map[string]any {
	return map[string]any{
		"sources": []any{map[string]any{"name": "app", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{map[string]any{"name": "ce-stream", "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": []any{map[string]any{"name": "app"}}}},
		"destinations": []any{
			map[string]any{"name": "out", "type": "CustomEndpoint", "properties": map[string]any{}, "inputNodes": []any{map[string]any{"name": "ce-stream"}}},
			map[string]any{"name": "lake", "type": "Lakehouse", "properties": map[string]any{"workspaceId": ws, "itemId": lh, "deltaTable": "events", "minimumRows": 1 /* commit each batch: not a batching test */}, "inputNodes": []any{map[string]any{"name": "ce-stream"}}},
		},
	}
}

type endpointFixture struct {
	e                     *testEnv
	base, topic           string
	src, out, lake, table string
}

func deployEndpoint(t *testing.T, opts ...emulator.Option) endpointFixture {
	return deployEndpointIn(startEnv(t, opts...))
}

// deployEndpointIn deploys endpointTopology in e.
func deployEndpointIn(e *testEnv) endpointFixture {
	ws := e.workspace("ce")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"}))
	es := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "ce", "definition": definitionOf(endpointTopology(ws, lh.str("id")), nil)}))
	f := endpointFixture{e: e, base: "/v1/workspaces/" + ws + "/eventstreams/" + es.str("id"),
		topic: es.Body["properties"].(map[string]any)["streams"].([]any)[0].(map[string]any)["topic"].(string),
		table: lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string) + "/events"}
	tp := e.must(200, e.call("GET", f.base+"/topology", nil)).Body
	f.src = nodesByName(tp, "sources")["app"]["id"].(string)
	f.out = nodesByName(tp, "destinations")["out"]["id"].(string)
	f.lake = nodesByName(tp, "destinations")["lake"]["id"].(string)
	return f
}

// connectionJSON is fabrictest's Connection with the consumer group kept
// as a pointer: a source's connection must not name one at all.
type connectionJSON struct {
	fabrictest.Connection
	ConsumerGroupName *string `json:"consumerGroupName"`
}

func (f endpointFixture) connection(method, path string, body any) connectionJSON {
	f.e.t.Helper()
	r := f.e.must(200, f.e.call(method, f.base+path, body))
	var c connectionJSON
	if err := json.Unmarshal(r.Raw, &c); err != nil {
		f.e.t.Fatal(err)
	}
	return c
}

func saslClient(t *testing.T, bootstrap, password string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap), kgo.RequestRetries(0), kgo.RecordDeliveryTimeout(10 * time.Second),
		kgo.SASL(plain.Auth{User: "$ConnectionString", Pass: password}.AsMechanism())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func produceOne(t *testing.T, bootstrap, password, topic, value string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl := saslClient(t, bootstrap, password, kgo.DefaultProduceTopic(topic))
	// A refused handshake surfaces on the first request; a producer would
	// keep retrying the record until its delivery timeout.
	if err := cl.Ping(ctx); err != nil {
		return err
	}
	return cl.ProduceSync(ctx, &kgo.Record{Value: []byte(value)}).FirstErr()
}

// TestCustomEndpointConnection: Fabric's connection shape, strings that
// authenticate a Kafka client on the emulator's endpoint, and the key
// checks done in the SASL handshake.
func TestCustomEndpointConnection(t *testing.T) {
	f := deployEndpoint(t)
	e := f.e
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	if c.FullyQualifiedNamespace != e.srv.KafkaEndpoint() || c.EventHubName != f.topic || c.ConsumerGroupName != nil {
		t.Fatalf("connection %+v (endpoint %s, topic %s)", c, e.srv.KafkaEndpoint(), f.topic)
	}
	// Endpoint names the Kafka endpoint, which takes Event Hubs clients'
	// AMQP too: on free ports, Endpoint and fullyQualifiedNamespace agree.
	form := regexp.MustCompile(`^Endpoint=sb://` + regexp.QuoteMeta(e.srv.KafkaEndpoint()) + `/;SharedAccessKeyName=(key_[0-9a-f]{8});SharedAccessKey=([A-Za-z0-9+/]{43}=);UseDevelopmentEmulator=true;EntityPath=` + regexp.QuoteMeta(f.topic) + `$`)
	m1, m2 := form.FindStringSubmatch(c.AccessKeys.PrimaryConnectionString), form.FindStringSubmatch(c.AccessKeys.SecondaryConnectionString)
	if m1 == nil || m2 == nil || m1[1] != m2[1] || m1[2] != c.AccessKeys.PrimaryKey || m2[2] != c.AccessKeys.SecondaryKey || c.AccessKeys.PrimaryKey == c.AccessKeys.SecondaryKey {
		t.Fatalf("connection strings %q / %q", c.AccessKeys.PrimaryConnectionString, c.AccessKeys.SecondaryConnectionString)
	}
	if again := f.connection("GET", "/sources/"+f.src+"/connection", nil); again != c {
		t.Fatalf("keys changed between two reads: %+v", again)
	}
	d := f.connection("GET", "/destinations/"+f.out+"/connection", nil)
	if d.ConsumerGroupName == nil || *d.ConsumerGroupName != "$Default" || d.EventHubName != f.topic || d.AccessKeys.PrimaryKey == c.AccessKeys.PrimaryKey {
		t.Fatalf("destination connection %+v", d)
	}

	// 20 events from a Kafka client holding the source's string land in
	// the Lakehouse and are read by one holding the destination's.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := saslClient(t, c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString, kgo.DefaultProduceTopic(c.EventHubName))
	for i := range 20 {
		if err := p.ProduceSync(ctx, &kgo.Record{Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, `{"n":%d}`, i)}).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
	waitRows(t, f.table, 20)
	cons := saslClient(t, d.FullyQualifiedNamespace, d.AccessKeys.SecondaryConnectionString, kgo.ConsumeTopics(d.EventHubName),
		kgo.ConsumerGroup(*d.ConsumerGroupName), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var got int
	for got < 20 {
		fs := cons.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("consume after %d: %v", got, err)
		}
		got += fs.NumRecords()
	}
	if got != 20 {
		t.Fatalf("consumed %d, want 20", got)
	}

	// Refusals happen in the SASL handshake, with the reason.
	for name, pass := range map[string]string{
		"wrong key":     strings.Replace(c.AccessKeys.PrimaryConnectionString, c.AccessKeys.PrimaryKey, strings.Repeat("A", 43)+"=", 1),
		"other entity":  strings.Replace(c.AccessKeys.PrimaryConnectionString, f.topic, f.topic+"x", 1),
		"no EntityPath": strings.Split(c.AccessKeys.PrimaryConnectionString, ";EntityPath=")[0],
		"unknown name":  strings.Replace(c.AccessKeys.PrimaryConnectionString, m1[1], "key_00000000", 1),
		"not a string":  "hunter2",
	} {
		err := produceOne(t, c.FullyQualifiedNamespace, pass, f.topic, `{"n":-1}`)
		if !errors.Is(err, kerr.SaslAuthenticationFailed) {
			t.Fatalf("%s: got %v, want SASL_AUTHENTICATION_FAILED", name, err)
		}
	}
	// A source's key sends and a destination's listens, as Event Hubs'
	// Send and Listen claims.
	if err := produceOne(t, d.FullyQualifiedNamespace, d.AccessKeys.PrimaryConnectionString, f.topic, `{"n":-1}`); !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("produce with the destination's key: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	sc := saslClient(t, c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString, kgo.ConsumeTopics(f.topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err := sc.PollFetches(ctx).Err0(); !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("consume with the source's key: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	// A foreign topic is refused by authorization, and not created.
	if err := produceOne(t, c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString, "other-topic", `{}`); !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("foreign topic: %v", err)
	}

	// Regenerating the primary key closes its sessions and refuses it;
	// the secondary keeps working.
	rotated := f.connection("POST", "/sources/"+f.src+"/connection/regenerateKeys", map[string]any{"keyType": "PrimaryKey"})
	if rotated.AccessKeys.PrimaryKey == c.AccessKeys.PrimaryKey || rotated.AccessKeys.SecondaryKey != c.AccessKeys.SecondaryKey {
		t.Fatalf("rotated %+v", rotated.AccessKeys)
	}
	if err := produceOne(t, c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString, f.topic, `{"n":-2}`); !errors.Is(err, kerr.SaslAuthenticationFailed) {
		t.Fatalf("old primary: %v", err)
	}
	for _, s := range []string{c.AccessKeys.SecondaryConnectionString, rotated.AccessKeys.PrimaryConnectionString} {
		if err := produceOne(t, c.FullyQualifiedNamespace, s, f.topic, `{"n":100}`); err != nil {
			t.Fatal(err)
		}
	}
	// Its session was closed (the next request sees EOF); reconnecting fails.
	for i := 0; ; i++ {
		err := p.Ping(ctx)
		if errors.Is(err, kerr.SaslAuthenticationFailed) {
			break
		} else if err == nil || i == 2 {
			t.Fatalf("the client authenticated with the regenerated key: %v, want SASL_AUTHENTICATION_FAILED", err)
		}
	}
	e.wantError(e.call("POST", f.base+"/sources/"+f.src+"/connection/regenerateKeys", map[string]any{"keyType": "Tertiary"}), 400, "InvalidInput")
}

// TestCustomEndpointConnectionErrors: which nodes have a connection, who may
// read it, and what an emulator without an endpoint answers.
func TestCustomEndpointConnectionErrors(t *testing.T) {
	f := deployEndpoint(t)
	e := f.e
	e.wantError(e.call("GET", f.base+"/destinations/"+f.lake+"/connection", nil), 400, "EventstreamNodeNotCustomEndpoint")
	e.wantError(e.call("GET", f.base+"/sources/"+f.lake+"/connection", nil), 404, "EntityNotFound")
	e.wantError(e.call("GET", f.base+"/destinations/00000000-0000-0000-0000-000000000001/connection", nil), 404, "EntityNotFound")
	viewer, err := e.srv.Token("5b1e0d5e-0000-4000-8000-00000000beef")
	if err != nil {
		t.Fatal(err)
	}
	ws := strings.Split(f.base, "/")[3]
	e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/roleAssignments", map[string]any{"principal": map[string]any{"id": "5b1e0d5e-0000-4000-8000-00000000beef", "type": "User"}, "role": "Viewer"}))
	e.wantError(e.callAs(viewer, "GET", f.base+"/sources/"+f.src+"/connection", nil), 403, "InsufficientPrivileges")

	// A CustomEndpoint destination behind an operator is refused at deploy.
	topo := endpointTopology(ws, "x")
	topo["operators"] = []any{map[string]any{"name": "only", "type": "Filter", "inputNodes": []any{map[string]any{"name": "ce-stream"}},
		"properties": map[string]any{"conditions": []any{map[string]any{"column": map[string]any{"columnName": "n"}, "operatorType": "IsNotNull"}}}}}
	topo["destinations"] = topo["destinations"].([]any)[:1]
	topo["destinations"].([]any)[0].(map[string]any)["inputNodes"] = []any{map[string]any{"name": "only"}}
	r := e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "ce2", "definition": definitionOf(topo, nil)})
	e.wantError(r, 400, "InvalidInput")

	off := deployEndpoint(t, emulator.WithKafkaEndpoint("off"))
	off.e.wantError(off.e.call("GET", off.base+"/sources/"+off.src+"/connection", nil), 501, "CustomEndpointKafkaDisabled")
}

// TestCustomEndpointKcat: librdkafka (kcat), configured the Event Hubs way,
// produces with the source's connection string and reads with the
// destination's, in its consumer group.
func TestCustomEndpointKcat(t *testing.T) {
	kcat := testclients.Kcat(t)
	f := deployEndpoint(t)
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	d := f.connection("GET", "/destinations/"+f.out+"/connection", nil)
	sasl := func(conn connectionJSON) []string {
		return []string{"-b", conn.FullyQualifiedNamespace, "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN",
			"-X", "sasl.username=$ConnectionString", "-X", "sasl.password=" + conn.AccessKeys.PrimaryConnectionString}
	}
	var in strings.Builder
	for i := range 50 {
		fmt.Fprintf(&in, "{\"n\":%d}\n", i)
	}
	testclients.Run(t, []byte(in.String()), kcat, append(sasl(c), "-t", c.EventHubName, "-P")...)
	waitRows(t, f.table, 50)
	out := testclients.Run(t, nil, kcat, append(sasl(d), "-X", "auto.offset.reset=earliest", "-e", "-q", "-c", "50", "-G", *d.ConsumerGroupName, d.EventHubName)...)
	if n := strings.Count(strings.TrimSpace(string(out)), "\n") + 1; n != 50 {
		t.Fatalf("kcat read %d lines, want 50: %s", n, out)
	}
}

// TestAdvertiseEndpoint: the loopback control route changes the address
// connection strings name (an emulator in a container learns its published
// port), and refuses remote callers and bad addresses.
func TestAdvertiseEndpoint(t *testing.T) {
	f := deployEndpoint(t)
	e := f.e
	r := e.must(200, e.callAs("", "POST", "/_emulator/kafka-endpoint", map[string]any{"advertised": "localhost:19093"}))
	if r.str("advertised") != "localhost:19093" || e.srv.KafkaEndpoint() != "localhost:19093" {
		t.Fatalf("advertise: %s, endpoint %s", r.Raw, e.srv.KafkaEndpoint())
	}
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	if c.FullyQualifiedNamespace != "localhost:19093" || !strings.HasPrefix(c.AccessKeys.PrimaryConnectionString, "Endpoint=sb://localhost:19093/;") {
		t.Fatalf("connection after advertise: %+v", c)
	}
	e.must(200, e.callAs("", "POST", "/_emulator/kafka-endpoint", map[string]any{"advertised": "127.0.0.1:9093"}))
	if c := f.connection("GET", "/sources/"+f.src+"/connection", nil); c.FullyQualifiedNamespace != "127.0.0.1" {
		t.Fatalf("on port 9093 the namespace is the host alone, as in Fabric: %q", c.FullyQualifiedNamespace)
	}
	e.wantError(e.callAs("", "POST", "/_emulator/kafka-endpoint", map[string]any{"advertised": "no-port"}), 400, "InvalidInput")
	req, _ := http.NewRequest("POST", "/_emulator/kafka-endpoint", strings.NewReader(`{"advertised":"evil:1"}`))
	req.RemoteAddr = "192.0.2.10:5555"
	rec := newRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != 403 || e.srv.KafkaEndpoint() != "127.0.0.1:9093" {
		t.Fatalf("remote advertise: %d, endpoint %s", rec.Code, e.srv.KafkaEndpoint())
	}
}

// TestCustomEndpointRemoved: a CustomEndpoint node that leaves the
// definition (updateDefinition), or whose Eventstream is deleted, closes
// the Kafka sessions its keys opened, and its strings stop working.
func TestCustomEndpointRemoved(t *testing.T) {
	f := deployEndpoint(t)
	e := f.e
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	d := f.connection("GET", "/destinations/"+f.out+"/connection", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := saslClient(t, c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString)
	if err := p.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	refused := func(cl *kgo.Client, what string) {
		t.Helper()
		for i := 0; ; i++ { // the closed session answers EOF first; reconnecting fails SASL
			err := cl.Ping(ctx)
			if errors.Is(err, kerr.SaslAuthenticationFailed) {
				return
			} else if err == nil || i == 2 {
				t.Fatalf("%s: %v, want SASL_AUTHENTICATION_FAILED", what, err)
			}
		}
	}

	// The update drops the CustomEndpoint source (the destination stays).
	ws := strings.Split(f.base, "/")[3]
	lh := strings.Split(f.table, "/")
	topo := endpointTopology(ws, lh[len(lh)-3])
	topo["sources"] = []any{}
	topo["streams"].([]any)[0].(map[string]any)["inputNodes"] = []any{}
	e.must(200, e.call("POST", f.base+"/updateDefinition", map[string]any{"definition": definitionOf(topo, nil)}))
	refused(p, "the removed source's session")
	e.wantError(e.call("GET", f.base+"/sources/"+f.src+"/connection", nil), 404, "EntityNotFound")

	cons := saslClient(t, d.FullyQualifiedNamespace, d.AccessKeys.PrimaryConnectionString)
	if err := cons.Ping(ctx); err != nil {
		t.Fatalf("the destination kept through the update: %v", err)
	}
	e.must(200, e.call("DELETE", f.base, nil))
	refused(cons, "a session of the deleted Eventstream")
}

// TestCustomEndpointPaused: pausing a CustomEndpoint source (or the
// Eventstream) cuts its Kafka clients off and refuses them until resumed,
// as the HTTP produce is refused.
func TestCustomEndpointPaused(t *testing.T) {
	f := deployEndpoint(t)
	e := f.e
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	d := f.connection("GET", "/destinations/"+f.out+"/connection", nil)
	for _, pause := range []string{"/sources/" + f.src, "/destinations/" + f.out, ""} {
		e.must(200, e.call("POST", f.base+pause+"/pause", nil))
		for _, conn := range []connectionJSON{c, d} {
			paused := pause == "" || strings.Contains(pause, f.src) == (conn == c)
			err := produceOne(t, conn.FullyQualifiedNamespace, conn.AccessKeys.PrimaryConnectionString, f.topic, `{}`)
			if paused && !errors.Is(err, kerr.SaslAuthenticationFailed) {
				t.Fatalf("pause %q: %s's client: %v, want SASL_AUTHENTICATION_FAILED", pause, conn.EventHubName, err)
			}
		}
		e.must(200, e.call("POST", f.base+pause+"/resume", map[string]any{"startType": "WhenLastStopped"}))
		if err := produceOne(t, c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString, f.topic, `{"n":1}`); err != nil {
			t.Fatalf("after resume %q: %v", pause, err)
		}
	}
}
