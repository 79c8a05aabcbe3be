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
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSourceEventHubReadsAnotherEmulator: an AzureEventHub source (and an
// AzureIoTHub one) reads, through Event Hubs' Kafka surface (Microsoft's
// "Use Azure Event Hubs from Apache Kafka applications": SASL PLAIN,
// username $ConnectionString, the connection string as password), the
// custom endpoint of a second emulator, into a Lakehouse. startPosition
// Earliest reads what came before the source started; Latest only what
// came after. The other source types stay refused by name.
func TestSourceEventHubReadsAnotherEmulator(t *testing.T) {
	// the "event hub": a second emulator's custom endpoint, its AMQP endpoint off
	// so that its connection strings name its Kafka endpoint (read through here)
	other := deployEndpoint(t, emulator.WithAMQPEndpoint("off"))
	in := other.connection("GET", "/sources/"+other.src+"/connection", nil)
	hub := other.connection("GET", "/destinations/"+other.out+"/connection", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	prod := saslClient(t, in.FullyQualifiedNamespace, in.AccessKeys.PrimaryConnectionString, kgo.DefaultProduceTopic(in.EventHubName))
	produce := func(from, n int) {
		for i := from; i < from+n; i++ {
			if err := prod.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, `{"n":%d}`, i)}).FirstErr(); err != nil {
				t.Fatalf("produce %d: %v", i, err)
			}
		}
	}
	produce(0, 3) // before the source starts

	e := startEnv(t, emulator.WithPartitions(1))
	ws := e.workspace("hubs")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"}))
	tables := lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string)
	const conn = "aaaaaaaa-0000-1111-2222-bbbbbbbbbbbb"
	reg := e.must(201, e.call("PUT", "/v1/_emulator/connections/"+conn, map[string]any{"workspaceId": ws,
		"connectionString": hub.AccessKeys.PrimaryConnectionString, "securityProtocol": "SASL_PLAINTEXT"}))
	if reg.str("eventHubName") != hub.EventHubName || reg.str("bootstrapServers") != hub.FullyQualifiedNamespace || reg.str("saslMechanism") != "PLAIN" || reg.str("username") != "$ConnectionString" {
		t.Fatalf("registered %s (namespace %s)", reg.Raw, hub.FullyQualifiedNamespace)
	}
	src := func(typ, group, start string) map[string]any {
		return map[string]any{"type": typ, "properties": map[string]any{"dataConnectionId": conn, "consumerGroupName": group, "startPosition": start,
			"inputSerialization": map[string]any{"type": "Json", "properties": map[string]any{"encoding": "UTF8"}}}}
	}
	hubBase, _ := deploy(t, e, ws, "hub", src("AzureEventHub", "$Default", "Earliest"), lh.str("id"), "hub")
	iotBase, _ := deploy(t, e, ws, "iot", src("AzureIoTHub", "iot", "Latest"), lh.str("id"), "iot")
	waitFor(t, 20*time.Second, "sources running", func() bool {
		return sourceNode(t, e, hubBase, "hub-src")["status"] == "Running" && sourceNode(t, e, iotBase, "iot-src")["status"] == "Running"
	})
	produce(3, 2) // after
	waitRows(t, filepath.Join(tables, "hub"), 5)
	waitRows(t, filepath.Join(tables, "iot"), 2)
	for table, want := range map[string][]int64{"hub": {0, 1, 2, 3, 4}, "iot": {3, 4}} {
		snap, err := delta.ReadTable(filepath.Join(tables, table))
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, r := range snap.Rows {
			got = append(got, r["n"].(int64))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("table %s holds n = %v, want %v", table, got, want)
		}
	}

	// Refusals: an unregistered connection, a Kafka connection, a bad
	// startPosition, a source type the emulator does not run.
	bad := func(s map[string]any, code, field string) {
		t.Helper()
		s["name"] = "s"
		r := e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "bad", "definition": definitionOf(map[string]any{"sources": []any{s}}, nil)})
		e.wantError(r, 400, code)
		if msg := r.str("message"); !strings.Contains(msg, field) {
			t.Fatalf("message %q lacks %q", msg, field)
		}
	}
	e.must(201, e.call("PUT", "/v1/_emulator/connections/kafka", map[string]any{"workspaceId": ws, "bootstrapServers": "127.0.0.1:1"}))
	bad(map[string]any{"type": "AzureEventHub", "properties": map[string]any{"dataConnectionId": "ffffffff-0000-1111-2222-bbbbbbbbbbbb", "consumerGroupName": "$Default"}}, "InvalidInput", "is not registered in this workspace")
	bad(map[string]any{"type": "AzureIoTHub", "properties": map[string]any{"dataConnectionId": "kafka", "consumerGroupName": "$Default"}}, "InvalidInput", "needs a connection registered with an Event Hubs connectionString")
	bad(map[string]any{"type": "AzureEventHub", "properties": map[string]any{"dataConnectionId": conn, "consumerGroupName": "$Default", "startPosition": "Middle"}}, "InvalidInput", `"Middle" is not Earliest or Latest`)
	bad(map[string]any{"type": "AmazonKinesis", "properties": map[string]any{"dataConnectionId": conn}}, "EventstreamNodeNotSupported", "AmazonKinesis")
	e.wantError(e.call("PUT", "/v1/_emulator/connections/x", map[string]any{"workspaceId": ws, "connectionString": "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=v"}), 400, "InvalidInput")
	ok := e.must(201, e.call("PUT", "/v1/_emulator/connections/cloud", map[string]any{"workspaceId": ws, "connectionString": "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=v;EntityPath=h"}))
	if ok.str("bootstrapServers") != "ns.servicebus.windows.net:9093" || ok.str("securityProtocol") != "SASL_SSL" {
		t.Fatalf("cloud connection %s", ok.Raw)
	}
}
