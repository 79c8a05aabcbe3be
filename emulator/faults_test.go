package emulator_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	azruntime "github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azeventhubs"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// inject adds a fault rule through POST /_emulator/faults.
func (e *testEnv) inject(rule wire.FaultRule) string {
	e.t.Helper()
	return e.must(201, e.call("POST", "/_emulator/faults", rule)).str("id")
}

// faultCount reads rule's injected count from /_emulator/metrics.
func (e *testEnv) faultCount(rule string) string {
	e.t.Helper()
	_, _, body := e.send("", "GET", "/_emulator/metrics", nil)
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, "fabric_emulator_faults_injected_total{") && strings.Contains(l, `rule="`+rule+`"`) {
			return l[strings.LastIndex(l, " ")+1:]
		}
	}
	return "0"
}

// retryingProducer is a franz-go producer as users configure it: its
// default retries and idempotence, the connection string as password.
func retryingProducer(t *testing.T, bootstrap, conn, topic string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(topic),
		kgo.SASL(plain.Auth{User: "$ConnectionString", Pass: conn}.AsMechanism()), kgo.RecordDeliveryTimeout(30 * time.Second),
		// A retried produce refreshes metadata first, at most once per
		// MetadataMinAge (5 s by default): shorter, the test waits less.
		kgo.MetadataMinAge(200 * time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// produceNumbered produces {"n": from}…{"n": to-1} one at a time and
// returns the numbers the producer had acknowledged.
func produceNumbered(t *testing.T, cl *kgo.Client, from, to int) []int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var acked []int
	for n := from; n < to; n++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, `{"n":%d}`, n)}).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", n, err)
		}
		acked = append(acked, n)
	}
	return acked
}

// exactlyOnce waits until the Lakehouse table holds every acked n and
// fails on one missing, one twice, or one never acked.
func (f endpointFixture) exactlyOnce(t *testing.T, acked []int) {
	t.Helper()
	var got []int
	waitFor(t, 20*time.Second, fmt.Sprintf("the table to hold %d rows", len(acked)), func() bool {
		snap, err := readTableMaybe(f.table)
		if err != nil {
			return false
		}
		got = got[:0]
		for _, r := range snap.Rows {
			got = append(got, int(toInt64(r["n"])))
		}
		return len(got) >= len(acked)
	})
	time.Sleep(300 * time.Millisecond) // a duplicate written late would show now
	snap := readTable(t, f.table)
	got = got[:0]
	for _, r := range snap.Rows {
		got = append(got, int(toInt64(r["n"])))
	}
	slices.Sort(got)
	if !slices.Equal(got, acked) {
		t.Fatalf("table holds %v, want exactly the acknowledged %v", got, acked)
	}
}

func toInt64(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int32:
		return int64(n)
	case float64:
		return int64(n)
	case int:
		return int64(n)
	}
	return -1
}

// sourceLogs are the runtime logs of the fixture's CustomEndpoint source
// that mention a fault.
func (f endpointFixture) sourceLogs() string {
	return string(f.e.must(200, f.e.call("GET", f.base+"/sources/"+f.src+"/logs?keyword=fault", nil)).Raw)
}

// TestKafkaProducerRetriesThroughInjectedErrors: a franz-go producer with
// its default retries meets NOT_ENOUGH_REPLICAS on its first Produce
// requests; once the rule's count runs out every acknowledged record is
// in the Lakehouse table exactly once, and each fault is counted and
// logged in the source's runtime logs.
func TestKafkaProducerRetriesThroughInjectedErrors(t *testing.T) {
	f := deployEndpoint(t)
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	id := f.e.inject(wire.FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorKafka, Operation: wire.FaultProduce},
		Effect: wire.FaultEffect{Kind: wire.FaultError, KafkaError: "NOT_ENOUGH_REPLICAS"}, Count: 3})
	p := retryingProducer(t, c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString, c.EventHubName)
	start := time.Now()
	acked := produceNumbered(t, p, 0, 20)
	t.Logf("produced in %s", time.Since(start))
	f.exactlyOnce(t, acked)
	t.Logf("delivered in %s", time.Since(start))
	if n := f.e.faultCount(id); n != "3" {
		t.Fatalf("metrics count %s faults of rule %s, want 3", n, id)
	}
	if logs := f.sourceLogs(); strings.Count(logs, "fault injected") != 3 {
		t.Fatalf("source runtime logs, want 3 fault entries: %s", logs)
	}
}

// throttleHook records the throttles franz-go saw.
type throttleHook struct {
	mu   sync.Mutex
	seen []time.Duration
}

func (h *throttleHook) OnBrokerThrottle(_ kgo.BrokerMetadata, d time.Duration, _ bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen = append(h.seen, d)
}

// TestKafkaProducerMeetsThrottleAndDrops: the producer's answers carry an
// injected throttle time (franz-go reports it to its hook and waits it
// out), then its connection is dropped twice before a Produce is
// forwarded; every acknowledged record arrives exactly once.
func TestKafkaProducerMeetsThrottleAndDrops(t *testing.T) {
	f := deployEndpoint(t)
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	hook := &throttleHook{}
	p := retryingProducer(t, c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString, c.EventHubName, kgo.WithHooks(hook))
	acked := produceNumbered(t, p, 0, 2) // connected and warmed up
	f.e.inject(wire.FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorKafka, Operation: wire.FaultProduce},
		Effect: wire.FaultEffect{Kind: wire.FaultThrottle, ThrottleMs: 400}, Count: 2})
	start := time.Now()
	acked = append(acked, produceNumbered(t, p, 2, 6)...)
	if took := time.Since(start); took < 400*time.Millisecond {
		t.Fatalf("4 produces under a 400 ms throttle took %s", took)
	}
	hook.mu.Lock()
	seen := slices.Clone(hook.seen)
	hook.mu.Unlock()
	if len(seen) < 2 || seen[0] != 400*time.Millisecond {
		t.Fatalf("franz-go saw throttles %v, want two of 400ms", seen)
	}
	f.e.inject(wire.FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorKafka, Operation: wire.FaultProduce},
		Effect: wire.FaultEffect{Kind: wire.FaultDrop}, Count: 2})
	acked = append(acked, produceNumbered(t, p, 6, 12)...)
	f.exactlyOnce(t, acked)
	if len(f.e.must(200, f.e.call("GET", "/_emulator/faults", nil)).Body["value"].([]any)) != 0 {
		t.Fatal("rules still active after their counts")
	}
}

// ehRetryingProducer is azeventhubs' producer on the fixture's source with
// its retry policy (a shorter delay than its 4 s default), after one send
// of {"n":0} before any fault; it returns the source's connection too.
func ehRetryingProducer(t *testing.T, f endpointFixture, ctx context.Context, retries int32) (*azeventhubs.ProducerClient, connectionJSON) {
	t.Helper()
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	p, err := azeventhubs.NewProducerClientFromConnectionString(c.AccessKeys.PrimaryConnectionString, "",
		&azeventhubs.ProducerClientOptions{RetryOptions: azeventhubs.RetryOptions{MaxRetries: retries, RetryDelay: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	if err := ehSend(ctx, p, nil, nil, `{"n":0}`); err != nil {
		t.Fatalf("send before the fault: %v", err)
	}
	return p, c
}

// ehSendThrough injects effect count times on the Event Hubs door's
// produce, sends {"n":1} and {"n":2} with p, and checks that the rule met
// the send count times and that the table holds 0, 1 and 2 once each.
func ehSendThrough(t *testing.T, f endpointFixture, ctx context.Context, p *azeventhubs.ProducerClient, effect wire.FaultEffect, count int) {
	t.Helper()
	id := f.e.inject(wire.FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorEventHubs, Operation: wire.FaultProduce},
		Effect: effect, Count: count})
	if err := ehSend(ctx, p, nil, nil, `{"n":1}`, `{"n":2}`); err != nil {
		t.Fatalf("send through %s: %v", effect.Kind, err)
	}
	if n := f.e.faultCount(id); n != fmt.Sprint(count) {
		t.Fatalf("%s faults counted, want %d", n, count)
	}
	f.exactlyOnce(t, []int{0, 1, 2})
}

// TestEventHubsProducerRetriesServerBusy: azeventhubs' ProducerClient,
// with its retry policy, meets com.microsoft:server-busy twice and
// succeeds on its third try; each event sent is in the table once.
// Without retries, the SDK reports the condition.
func TestEventHubsProducerRetriesServerBusy(t *testing.T) {
	f := deployEndpoint(t)
	ctx := ehContext(t)
	p, c := ehRetryingProducer(t, f, ctx, 3)
	ehSendThrough(t, f, ctx, p, wire.FaultEffect{Kind: wire.FaultThrottle}, 2)

	once, err := azeventhubs.NewProducerClientFromConnectionString(c.AccessKeys.PrimaryConnectionString, "",
		&azeventhubs.ProducerClientOptions{RetryOptions: azeventhubs.RetryOptions{MaxRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { once.Close(context.Background()) })
	f.e.inject(wire.FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorEventHubs}, Effect: wire.FaultEffect{Kind: wire.FaultThrottle}, Count: 1})
	if err := ehSend(ctx, once, nil, nil, `{"n":3}`); err == nil || !strings.Contains(err.Error(), "server-busy") {
		t.Fatalf("send without retries: %v, want com.microsoft:server-busy", err)
	}
}

// TestEventHubsProducerReconnectsAfterDrop: a drop on the Event Hubs door
// closes the connection under azeventhubs' send with no AMQP close; the
// SDK's retry policy opens a new connection and sends again, and each
// event is in the table once (the dropped send wrote nothing).
func TestEventHubsProducerReconnectsAfterDrop(t *testing.T) {
	f := deployEndpoint(t)
	ctx := ehContext(t)
	p, _ := ehRetryingProducer(t, f, ctx, 3)
	ehSendThrough(t, f, ctx, p, wire.FaultEffect{Kind: wire.FaultDrop}, 1)
}

// TestLakehouseDestinationRetriesWriteFailures: the Lakehouse destination
// fails its next 3 writes; it retries from its journal and the table then
// holds exactly what was acknowledged; the destination's runtime logs
// name the failures.
func TestLakehouseDestinationRetriesWriteFailures(t *testing.T) {
	f := deployEndpoint(t)
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	f.e.inject(wire.FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorDestination, Destination: f.lake},
		Effect: wire.FaultEffect{Kind: wire.FaultWriteFailure}, Count: 3})
	p := retryingProducer(t, c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString, c.EventHubName)
	acked := produceNumbered(t, p, 0, 15)
	f.exactlyOnce(t, acked)
	logs := string(f.e.must(200, f.e.call("GET", f.base+"/destinations/"+f.lake+"/logs?keyword=fault", nil)).Raw)
	if strings.Count(logs, "injected fault: the destination's write failed") != 3 || strings.Count(logs, "fault injected") != 3 {
		t.Fatalf("destination logs, want 3 failures: %s", logs)
	}
}

// TestBrokerUnreachableFailsHTTPProduce: while the broker is unreachable
// the Custom HTTP produce answers 502 KafkaUnavailable; after, it takes
// events again.
func TestBrokerUnreachableFailsHTTPProduce(t *testing.T) {
	f := deployEndpoint(t)
	path := f.base + "/sources/" + f.src + "/events"
	f.e.inject(wire.FaultRule{Target: wire.FaultTarget{Door: wire.FaultDoorBroker}, Effect: wire.FaultEffect{Kind: wire.FaultUnreachable}, Count: 1})
	f.e.wantError(f.e.call("POST", path, `{"events":[{"value":{"n":1}}]}`), 502, "KafkaUnavailable")
	f.e.must(200, f.e.call("POST", path, `{"events":[{"value":{"n":2}}]}`))
	f.exactlyOnce(t, []int{2})
}

// TestAzureSDKPipelineHonoursRetryAfter: azcore's pipeline, with its
// default retry policy, meets Fabric's 429 RequestBlocked twice and waits
// the Retry-After each time before it gets its 200.
func TestAzureSDKPipelineHonoursRetryAfter(t *testing.T) {
	e := startEnv(t, emulator.WithFaults(wire.FaultRule{ID: "throttle-list",
		Target: wire.FaultTarget{Door: wire.FaultDoorREST, Route: "GET /v1/workspaces"},
		Effect: wire.FaultEffect{Kind: wire.FaultThrottle, RetryAfterSeconds: 1}, Count: 2}))
	pl := azruntime.NewPipeline("fabrictest", "v0", azruntime.PipelineOptions{}, &policy.ClientOptions{
		Retry: policy.RetryOptions{MaxRetries: 3, RetryDelay: 10 * time.Millisecond}})
	req, err := azruntime.NewRequest(context.Background(), http.MethodGet, e.url+"/v1/workspaces")
	if err != nil {
		t.Fatal(err)
	}
	req.Raw().Header.Set("Authorization", "Bearer "+e.token)
	start := time.Now()
	resp, err := pl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("after retries: %d %s", resp.StatusCode, body)
	}
	if took := time.Since(start); took < 2*time.Second {
		t.Fatalf("two Retry-After: 1 honoured in %s", took)
	}
	if n := e.faultCount("throttle-list"); n != "2" {
		t.Fatalf("%s throttles counted, want 2", n)
	}
}

// TestLatencyOnEveryDoor: a latency rule holds a call for its time and
// then lets it through, on each door a client can reach: the REST produce
// (net/http), the Kafka endpoint (franz-go) and the Event Hubs endpoint
// (azeventhubs); each rule is used up by one call and every event lands
// once. The delay is checked from below only (a loaded machine is slower,
// never faster).
func TestLatencyOnEveryDoor(t *testing.T) {
	const wait = 400 * time.Millisecond
	f := deployEndpoint(t)
	ctx := ehContext(t)
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	p, _ := ehRetryingProducer(t, f, ctx, 0) // sends {"n":0}
	k := retryingProducer(t, c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString, c.EventHubName)
	produceNumbered(t, k, 1, 2) // connected before the rule

	delayed := func(door string, call func()) {
		t.Helper()
		id := f.e.inject(wire.FaultRule{Target: wire.FaultTarget{Door: door, Operation: wire.FaultProduce},
			Effect: wire.FaultEffect{Kind: wire.FaultLatency, LatencyMs: int(wait / time.Millisecond)}, Count: 1})
		start := time.Now()
		call()
		if took := time.Since(start); took < wait {
			t.Errorf("%s: the call took %s under a %s latency rule", door, took, wait)
		}
		if n := f.e.faultCount(id); n != "1" {
			t.Errorf("%s: %s faults counted, want 1", door, n)
		}
	}
	delayed(wire.FaultDoorREST, func() {
		f.e.must(200, f.e.call("POST", f.base+"/sources/"+f.src+"/events", `{"events":[{"value":{"n":2}}]}`))
	})
	delayed(wire.FaultDoorKafka, func() { produceNumbered(t, k, 3, 4) })
	delayed(wire.FaultDoorEventHubs, func() {
		if err := ehSend(ctx, p, nil, nil, `{"n":4}`); err != nil {
			t.Fatalf("send under latency: %v", err)
		}
	})
	f.exactlyOnce(t, []int{0, 1, 2, 3, 4})
}
