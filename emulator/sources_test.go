package emulator_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// waitFor polls cond every 25 ms for up to d.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); ; time.Sleep(25 * time.Millisecond) {
		if cond() {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
	}
}

// sourceNode finds the named source in the Eventstream's topology.
func sourceNode(t *testing.T, e *testEnv, base, name string) map[string]any {
	t.Helper()
	n := nodesByName(e.must(200, e.call("GET", base+"/topology", nil)).Body, "sources")[name]
	if n == nil {
		t.Fatalf("no source %s in the topology", name)
	}
	return n
}

// deploy creates Eventstream name with one source (and a Lakehouse
// destination when lh is set) and returns its path, datasource topic and
// the created item.
func deploy(t *testing.T, e *testEnv, ws, name string, src map[string]any, lh, table string) (base, topic string) {
	t.Helper()
	src["name"] = name + "-src"
	topo := map[string]any{
		"sources":      []any{src},
		"streams":      []any{map[string]any{"name": name + "-stream", "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": []any{map[string]any{"name": name + "-src"}}}},
		"operators":    []any{},
		"destinations": []any{},
	}
	if lh != "" {
		topo["destinations"] = []any{map[string]any{"name": name + "-lh", "type": "Lakehouse",
			"properties": map[string]any{"workspaceId": ws, "itemId": lh, "deltaTable": table, "minimumRows": 1 /* commit each batch: not a batching test */},
			"inputNodes": []any{map[string]any{"name": name + "-stream"}}}}
	}
	r := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": name, "definition": definitionOf(topo, nil)}))
	s := r.Body["properties"].(map[string]any)["streams"].([]any)[0].(map[string]any)
	return "/v1/workspaces/" + ws + "/eventstreams/" + r.str("id"), s["topic"].(string)
}

func TestSourceSampleDataLandsInLakehouse(t *testing.T) {
	e := startEnv(t, emulator.WithSampleDataRate(5, 50*time.Millisecond), emulator.WithPartitions(1))
	ws := e.workspace("sample")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "bikes_lh"}))
	dir := filepath.Join(lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string), "bikes")

	// An unknown sample set is refused, naming the node and the sets.
	bad := map[string]any{"name": "x", "type": "SampleData", "properties": map[string]any{"type": "Weather"}}
	r := e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "bad", "definition": definitionOf(map[string]any{"sources": []any{bad}}, nil)})
	e.wantError(r, 400, "InvalidInput")
	if msg := r.str("message"); !strings.Contains(msg, `"x"`) || !strings.Contains(msg, "Bicycles") || !strings.Contains(msg, "SemanticModelLogs") {
		t.Fatalf("message %s", msg)
	}

	base, _ := deploy(t, e, ws, "bikes", map[string]any{"type": "sampledata", "properties": map[string]any{"type": "Bicycles"}}, lh.str("id"), "bikes")
	waitFor(t, 10*time.Second, "sample rows", func() bool { return rowsNow(t, dir) >= 15 })
	snap, err := delta.ReadTable(dir)
	if err != nil {
		t.Fatal(err)
	}
	types := columnTypes(snap)
	for col, typ := range map[string]string{"BikepointID": "string", "Street": "string", "Neighbourhood": "string", "Latitude": "double",
		"Longitude": "double", "No_Bikes": "long", "No_Empty_Docks": "long"} {
		if types[col] != typ {
			t.Fatalf("column %s is %q, want %s (schema %v)", col, types[col], typ, types)
		}
	}
	for _, row := range snap.Rows {
		if !strings.HasPrefix(row["BikepointID"].(string), "BikePoints_") || row["No_Bikes"].(int64) < 0 {
			t.Fatalf("row %v", row)
		}
	}
	src := sourceNode(t, e, base, "bikes-src")
	if src["status"] != "Running" || src["type"] != "SampleData" {
		t.Fatalf("source %v", src)
	}

	// Paused, the source stops producing: the row count settles and stays.
	e.must(200, e.call("POST", base+"/sources/"+src["id"].(string)+"/pause", nil))
	if st := sourceNode(t, e, base, "bikes-src")["status"]; st != "Paused" {
		t.Fatalf("status %v after pause", st)
	}
	settled := 0
	waitFor(t, 5*time.Second, "delivery to settle", func() bool {
		n := rowsNow(t, dir)
		time.Sleep(200 * time.Millisecond)
		settled = rowsNow(t, dir)
		return n == settled
	})
	time.Sleep(400 * time.Millisecond) // eight intervals
	if n := rowsNow(t, dir); n != settled {
		t.Fatalf("%d rows while paused, %d when paused", n, settled)
	}

	// Resumed, it goes on; deleted, it stops with its Eventstream.
	e.must(200, e.call("POST", base+"/sources/"+src["id"].(string)+"/resume", map[string]any{"startType": "WhenLastStopped"}))
	waitFor(t, 10*time.Second, "rows after resume", func() bool { return rowsNow(t, dir) >= settled+10 })
	e.must(200, e.call("DELETE", base, nil))
}

// secondCluster is a kfake cluster standing for a user's Kafka, with topic
// "orders" of two partitions and a producer.
func secondCluster(t *testing.T) (*kfake.Cluster, *kgo.Client) {
	t.Helper()
	c, _ := kafkaCluster(t, kfake.SeedTopics(2, "orders"))
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("orders"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return c, cl
}

func produceOrders(t *testing.T, cl *kgo.Client, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		r := &kgo.Record{Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, `{"order":%d}`, i), Partition: int32(i % 2),
			Headers:   []kgo.RecordHeader{{Key: "h", Value: fmt.Appendf(nil, "v%d", i)}},
			Timestamp: time.UnixMilli(1_700_000_000_000 + int64(i)*1000)}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

// readTopic reads every record of topic on the emulator's broker, waiting
// until it has want of them, then a little longer to catch extra ones.
func readTopic(t *testing.T, e *testEnv, topic string, want int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.srv.KafkaBootstrap()...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []*kgo.Record
	deadline := time.Now().Add(10 * time.Second)
	extra := time.Time{}
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		out = append(out, cl.PollFetches(ctx).Records()...)
		cancel()
		switch {
		case len(out) >= want && extra.IsZero():
			extra = time.Now().Add(500 * time.Millisecond)
		case !extra.IsZero() && time.Now().After(extra), time.Now().After(deadline):
			slices.SortFunc(out, func(a, b *kgo.Record) int { return strings.Compare(string(a.Key), string(b.Key)) })
			return out
		}
	}
}

func TestSourceKafkaCopiesTopicFromAnotherCluster(t *testing.T) {
	e := startEnv(t, emulator.WithPartitions(1))
	ws := e.workspace("kafka")
	other, prod := secondCluster(t)
	bootstrap := strings.Join(other.ListenAddrs(), ",")
	produceOrders(t, prod, 0, 3) // before the sources start

	// The connection registry: registered, read back without its password.
	conn := "0a0b0c0d-0000-1111-2222-333344445555"
	e.must(201, e.call("PUT", "/v1/_emulator/connections/"+conn, map[string]any{"workspaceId": ws, "bootstrapServers": bootstrap}))
	e.must(200, e.call("PUT", "/v1/_emulator/connections/"+conn, map[string]any{"workspaceId": ws, "bootstrapServers": bootstrap, "securityProtocol": "PLAINTEXT"}))
	got := e.must(200, e.call("GET", "/v1/_emulator/connections/"+strings.ToUpper(conn), nil))
	if got.str("bootstrapServers") != bootstrap || got.str("securityProtocol") != "PLAINTEXT" {
		t.Fatalf("connection %s", got.Raw)
	}
	e.wantError(e.call("PUT", "/v1/_emulator/connections/x", map[string]any{"workspaceId": ws, "bootstrapServers": "nohost"}), 400, "InvalidInput")
	e.must(201, e.call("PUT", "/v1/_emulator/connections/sasl", map[string]any{"workspaceId": ws, "bootstrapServers": "h:1", "saslMechanism": "SCRAM-SHA-512", "username": "u", "password": "secret"}))
	if r := e.must(200, e.call("GET", "/v1/_emulator/connections/sasl", nil)); strings.Contains(string(r.Raw), "secret") || r.str("securityProtocol") != "SASL_PLAINTEXT" {
		t.Fatalf("connection %s", r.Raw)
	}
	kafkaSrc := func(typ, group, reset string) map[string]any {
		return map[string]any{"type": typ, "properties": map[string]any{"dataConnectionId": conn, "topic": "orders", "consumerGroupName": group, "autoOffsetReset": reset}}
	}
	early, earlyTopic := deploy(t, e, ws, "early", kafkaSrc("ApacheKafka", "g-early", "Earliest"), "", "")
	late, lateTopic := deploy(t, e, ws, "late", kafkaSrc("ConfluentCloud", "g-late", "Latest"), "", "")
	waitFor(t, 10*time.Second, "sources running", func() bool {
		return sourceNode(t, e, early, "early-src")["status"] == "Running" && sourceNode(t, e, late, "late-src")["status"] == "Running"
	})
	produceOrders(t, prod, 3, 2) // after

	check := func(recs []*kgo.Record, from, n int) {
		t.Helper()
		if len(recs) != n {
			t.Fatalf("%d records, want %d", len(recs), n)
		}
		for i, r := range recs {
			j := from + i
			if string(r.Key) != fmt.Sprintf("k%d", j) || string(r.Value) != fmt.Sprintf(`{"order":%d}`, j) ||
				len(r.Headers) != 1 || string(r.Headers[0].Value) != fmt.Sprintf("v%d", j) || r.Timestamp.UnixMilli() != 1_700_000_000_000+int64(j)*1000 {
				t.Fatalf("record %d: key %s value %s headers %v ts %v", j, r.Key, r.Value, r.Headers, r.Timestamp)
			}
		}
	}
	check(readTopic(t, e, earlyTopic, 5), 0, 5) // Earliest: everything
	check(readTopic(t, e, lateTopic, 2), 3, 2)  // Latest: what came after it started

	// The groups' offsets are committed on the other cluster.
	adm := kadm.NewClient(prod)
	for _, g := range []string{"g-early", "g-late"} {
		waitFor(t, 5*time.Second, "offsets of "+g, func() bool {
			offs, err := adm.FetchOffsets(context.Background(), g)
			if err != nil {
				return false
			}
			p0, _ := offs.Lookup("orders", 0)
			p1, _ := offs.Lookup("orders", 1)
			return p0.At == 3 && p1.At == 2
		})
	}

	// Paused, nothing is copied; resumed, the copy goes on from the group's offsets.
	src := sourceNode(t, e, early, "early-src")["id"].(string)
	e.must(200, e.call("POST", early+"/sources/"+src+"/pause", nil))
	produceOrders(t, prod, 5, 1)
	time.Sleep(300 * time.Millisecond)
	if n := len(readTopic(t, e, earlyTopic, 5)); n != 5 {
		t.Fatalf("%d records while paused", n)
	}
	e.must(200, e.call("POST", early+"/sources/"+src+"/resume", map[string]any{"startType": "WhenLastStopped"}))
	check(readTopic(t, e, earlyTopic, 6), 0, 6)
}

func TestSourceKafkaFailures(t *testing.T) {
	e := startEnv(t, emulator.WithPartitions(1))
	ws := e.workspace("kafka-bad")
	other, _ := secondCluster(t)
	src := func(conn, topic string) map[string]any {
		return map[string]any{"type": "AmazonMSKKafka", "properties": map[string]any{"dataConnectionId": conn, "topic": topic, "consumerGroupName": "g", "autoOffsetReset": "Earliest"}}
	}

	// An unknown connection is refused, and the answer says how to register it.
	topo := map[string]any{"sources": []any{map[string]any{"name": "msk", "type": "AmazonMSKKafka", "properties": src("11111111-2222-3333-4444-555555555555", "t")["properties"]}}}
	r := e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "x", "definition": definitionOf(topo, nil)})
	e.wantError(r, 400, "InvalidInput")
	if msg := r.str("message"); !strings.Contains(msg, `"msk"`) || !strings.Contains(msg, "PUT /v1/_emulator/connections/11111111-2222-3333-4444-555555555555") {
		t.Fatalf("message %s", msg)
	}

	// An unreachable cluster and a missing topic fail the source, with the reason.
	e.must(201, e.call("PUT", "/v1/_emulator/connections/down", map[string]any{"workspaceId": ws, "bootstrapServers": "127.0.0.1:1"}))
	e.must(201, e.call("PUT", "/v1/_emulator/connections/up", map[string]any{"workspaceId": ws, "bootstrapServers": strings.Join(other.ListenAddrs(), ",")}))
	down, _ := deploy(t, e, ws, "down", src("down", "orders"), "", "")
	missing, _ := deploy(t, e, ws, "missing", src("up", "nope"), "", "")
	for _, c := range []struct{ base, name, want string }{{down, "down-src", "127.0.0.1:1"}, {missing, "missing-src", `topic "nope" does not exist`}} {
		base, name, want := c.base, c.name, c.want
		waitFor(t, 10*time.Second, name+" failed", func() bool { return sourceNode(t, e, base, name)["status"] == "Failed" })
		n := sourceNode(t, e, base, name)
		errObj, _ := n["error"].(map[string]any)
		if msg, _ := errObj["errorMessage"].(string); !strings.Contains(msg, want) || errObj["errorCode"] != "SourceFailed" {
			t.Fatalf("%s: error %v, want one naming %s", name, n["error"], want)
		}
	}

	// The connection's removal fails its sources too; re-registering it
	// (now pointing at a cluster that has the topic) cures them.
	e.must(200, e.call("DELETE", "/v1/_emulator/connections/down", nil))
	e.wantError(e.call("GET", "/v1/_emulator/connections/down", nil), 404, "ConnectionNotFound")
	e.must(201, e.call("PUT", "/v1/_emulator/connections/down", map[string]any{"workspaceId": ws, "bootstrapServers": strings.Join(other.ListenAddrs(), ",")}))
	waitFor(t, 10*time.Second, "cured source", func() bool { return sourceNode(t, e, down, "down-src")["status"] == "Running" })
}
