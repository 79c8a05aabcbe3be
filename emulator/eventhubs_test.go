package emulator_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azeventhubs"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ehContext bounds one Event Hubs test.
func ehContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// ehProducer is azeventhubs' producer for a connection string, unchanged.
func ehProducer(t *testing.T, conn string) *azeventhubs.ProducerClient {
	t.Helper()
	p, err := azeventhubs.NewProducerClientFromConnectionString(conn, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

// ehSend sends bodies in one batch with the batch options.
func ehSend(ctx context.Context, p *azeventhubs.ProducerClient, opts *azeventhubs.EventDataBatchOptions, props map[string]any, bodies ...string) error {
	b, err := p.NewEventDataBatch(ctx, opts)
	if err != nil {
		return err
	}
	for _, body := range bodies {
		if err := b.AddEventData(&azeventhubs.EventData{Body: []byte(body), Properties: props}, nil); err != nil {
			return err
		}
	}
	return p.SendEventDataBatch(ctx, b, nil)
}

// streamOf is the fixture's DefaultStream for the consume route.
func (f endpointFixture) stream() stream {
	id, ds, _ := strings.Cut(f.topic, ".")
	return stream{e: f.e, id: id, ds: ds, reads: "/v1/eventstreams/" + id + "/sources/" + ds + "/events"}
}

// TestEventHubsSDKSendReadByHTTPAndKafka: azeventhubs with the connection
// route's primaryConnectionString, unchanged, sends a batch with a
// partition key and one to a partition id; the consume route and a Kafka
// client holding the destination's string read them byte-exact, with the
// partition key as the record key and the application properties as
// AMQP-encoded headers.
func TestEventHubsSDKSendReadByHTTPAndKafka(t *testing.T) {
	f := deployEndpoint(t)
	ctx := ehContext(t)
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	p := ehProducer(t, c.AccessKeys.PrimaryConnectionString)
	props, err := p.GetEventHubProperties(ctx, nil)
	if err != nil || props.Name != f.topic || len(props.PartitionIDs) == 0 {
		t.Fatalf("GetEventHubProperties = %+v, %v", props, err)
	}
	key, pid := "device-7", props.PartitionIDs[len(props.PartitionIDs)-1]
	keyed := []string{`{"n":1}`, `{"n":2}`, `{"n":3}`, `{"n":4}`, `{"n":5}`}
	pinned := []string{`{"n":11}`, `{"n":12}`, `{"n":13}`}
	if err := ehSend(ctx, p, &azeventhubs.EventDataBatchOptions{PartitionKey: &key}, map[string]any{"source": "sdk"}, keyed...); err != nil {
		t.Fatalf("send keyed: %v", err)
	}
	if err := ehSend(ctx, p, &azeventhubs.EventDataBatchOptions{PartitionID: &pid}, nil, pinned...); err != nil {
		t.Fatalf("send to partition %s: %v", pid, err)
	}

	var recs []record
	waitFor(t, 10*time.Second, "the consume route to read 8 events", func() bool {
		recs, _ = f.stream().consume("")
		return len(recs) >= 8
	})
	byValue := map[string]record{}
	for _, r := range recs {
		byValue[string(r.Value)] = r
	}
	for _, v := range keyed {
		if r, ok := byValue[v]; !ok || string(r.Key) != key {
			t.Errorf("consume route: %s = %+v (present %v), want key %q", v, r, ok, key)
		}
	}
	for _, v := range pinned {
		if r, ok := byValue[v]; !ok || fmt.Sprint(r.Partition) != pid || r.Key != nil {
			t.Errorf("consume route: %s = %+v (present %v), want partition %s and no key", v, r, ok, pid)
		}
	}

	d := f.connection("GET", "/destinations/"+f.out+"/connection", nil)
	k := saslClient(t, d.FullyQualifiedNamespace, d.AccessKeys.PrimaryConnectionString, kgo.ConsumeTopics(d.EventHubName),
		kgo.ConsumerGroup("amqp-check"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	got := map[string]*kgo.Record{}
	for len(got) < 8 {
		fs := k.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("kafka fetch after %d records: %v", len(got), err)
		}
		fs.EachRecord(func(r *kgo.Record) { got[string(r.Value)] = r })
	}
	sdkEncoded := []byte{0xa1, 3, 's', 'd', 'k'} // the AMQP string "sdk"
	for _, v := range keyed {
		r := got[v]
		if r == nil || string(r.Key) != key || !slices.ContainsFunc(r.Headers, func(h kgo.RecordHeader) bool {
			return h.Key == "source" && bytes.Equal(h.Value, sdkEncoded)
		}) {
			t.Errorf("kafka: %s = %+v, want key %q and header source %x", v, r, key, sdkEncoded)
		}
	}
	for _, v := range pinned {
		if r := got[v]; r == nil || fmt.Sprint(r.Partition) != pid {
			t.Errorf("kafka: %s = %+v, want partition %s", v, r, pid)
		}
	}
	waitRows(t, f.table, 8)
}

// TestEventHubsSDKReceivesKafkaHeaders: a Kafka produce with headers
// through the custom endpoint reaches azeventhubs' ConsumerClient (the
// destination's string) with the headers as binary application
// properties, and an AMQP send keeps its typed properties.
func TestEventHubsSDKReceivesKafkaHeaders(t *testing.T) {
	f := deployEndpoint(t)
	ctx := ehContext(t)
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	kp := saslClient(t, c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString, kgo.DefaultProduceTopic(c.EventHubName))
	if err := kp.ProduceSync(ctx, &kgo.Record{Key: []byte("k1"), Value: []byte(`{"via":"kafka"}`),
		Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("xyz")}}}).FirstErr(); err != nil {
		t.Fatalf("kafka produce: %v", err)
	}
	p := ehProducer(t, c.AccessKeys.PrimaryConnectionString)
	one := "k1" // the same key: the same partition as the Kafka record
	if err := ehSend(ctx, p, &azeventhubs.EventDataBatchOptions{PartitionKey: &one}, map[string]any{"n": int64(7), "s": "txt"}, `{"via":"amqp"}`); err != nil {
		t.Fatalf("send: %v", err)
	}

	d := f.connection("GET", "/destinations/"+f.out+"/connection", nil)
	cc, err := azeventhubs.NewConsumerClientFromConnectionString(d.AccessKeys.PrimaryConnectionString, "", azeventhubs.DefaultConsumerGroup, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close(ctx)
	props, err := cc.GetEventHubProperties(ctx, nil)
	if err != nil {
		t.Fatalf("consumer GetEventHubProperties: %v", err)
	}
	var events []*azeventhubs.ReceivedEventData
	for _, id := range props.PartitionIDs {
		pc, err := cc.NewPartitionClient(id, &azeventhubs.PartitionClientOptions{StartPosition: azeventhubs.StartPosition{Earliest: to(true)}})
		if err != nil {
			t.Fatal(err)
		}
		info, err := cc.GetPartitionProperties(ctx, id, nil)
		if err != nil {
			t.Fatalf("partition %s properties: %v", id, err)
		}
		for !info.IsEmpty && int64(len(events)) < 2 {
			rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			got, err := pc.ReceiveEvents(rctx, 10, nil)
			cancel()
			events = append(events, got...)
			if err != nil || len(got) == 0 {
				break
			}
		}
		pc.Close(ctx)
	}
	if len(events) != 2 {
		t.Fatalf("received %d events, want 2", len(events))
	}
	for _, ev := range events {
		switch string(ev.Body) {
		case `{"via":"kafka"}`:
			if h, ok := ev.Properties["h"].([]byte); !ok || string(h) != "xyz" || ev.PartitionKey == nil || *ev.PartitionKey != "k1" {
				t.Errorf("kafka event: properties %#v, partition key %v", ev.Properties, ev.PartitionKey)
			}
		case `{"via":"amqp"}`:
			if ev.Properties["n"] != int64(7) || ev.Properties["s"] != "txt" {
				t.Errorf("amqp event: properties %#v", ev.Properties)
			}
		default:
			t.Errorf("unexpected event %q", ev.Body)
		}
		if ev.SequenceNumber != ev.Offset || ev.EnqueuedTime == nil || ev.EnqueuedTime.IsZero() {
			t.Errorf("event %q: sequence %d offset %d enqueued %v", ev.Body, ev.SequenceNumber, ev.Offset, ev.EnqueuedTime)
		}
	}
}

func to[T any](v T) *T { return &v }

// TestEventHubsSDKRefusedWhenPausedOrRegenerated: a paused source refuses
// the send (com.microsoft:entity-disabled, which the SDK does not
// retry); after a resume it takes events again; a regenerated key closes
// the connections opened with it and refuses new ones.
func TestEventHubsSDKRefusedWhenPausedOrRegenerated(t *testing.T) {
	f := deployEndpoint(t)
	e := f.e
	ctx := ehContext(t)
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	p := ehProducer(t, c.AccessKeys.PrimaryConnectionString)
	if err := ehSend(ctx, p, nil, nil, `{"n":1}`); err != nil {
		t.Fatalf("send before pause: %v", err)
	}
	e.must(200, e.call("POST", f.base+"/sources/"+f.src+"/pause", nil))
	err := ehSend(ctx, p, nil, nil, `{"n":2}`)
	if err == nil || !strings.Contains(err.Error(), "paused") {
		t.Fatalf("send while paused: %v, want a refusal naming the pause", err)
	}
	e.must(200, e.call("POST", f.base+"/sources/"+f.src+"/resume", map[string]any{"startType": "Now"}))
	p2 := ehProducer(t, c.AccessKeys.PrimaryConnectionString)
	if err := ehSend(ctx, p2, nil, nil, `{"n":3}`); err != nil {
		t.Fatalf("send after resume: %v", err)
	}

	f.connection("POST", "/sources/"+f.src+"/connection/regenerateKeys", map[string]any{"keyType": "PrimaryKey"})
	if err := ehSend(ctx, p2, nil, nil, `{"n":4}`); err == nil {
		t.Fatal("a connection opened with a regenerated key still sends")
	}
	old := ehProducer(t, c.AccessKeys.PrimaryConnectionString)
	if err := ehSend(ctx, old, nil, nil, `{"n":4}`); err == nil {
		t.Fatal("a regenerated key still sends")
	}
	if err := ehSend(ctx, ehProducer(t, c.AccessKeys.SecondaryConnectionString), nil, nil, `{"n":5}`); err != nil {
		t.Fatalf("the secondary key after the primary's regeneration: %v", err)
	}
	var recs []record
	waitFor(t, 10*time.Second, "3 events", func() bool { recs, _ = f.stream().consume(""); return len(recs) >= 3 })
	for _, r := range recs {
		if v := string(r.Value); v == `{"n":2}` || v == `{"n":4}` {
			t.Errorf("a refused event was written: %s", v)
		}
	}
}

// TestEventHubsDataInsightsEqualHTTPs: the same events sent over HTTP to
// one Eventstream and with azeventhubs to another count the same data
// insights on every node.
func TestEventHubsDataInsightsEqualHTTPs(t *testing.T) {
	viaHTTP, viaAMQP := deployEndpoint(t), deployEndpoint(t)
	e := viaHTTP.e
	values := []string{`{"n":1,"s":"a"}`, `{"n":22,"s":"bb"}`, `{"n":333,"s":"ccc"}`}
	var evs []string
	for _, v := range values {
		evs = append(evs, fmt.Sprintf(`{"value":%s}`, v))
	}
	e.must(200, e.call("POST", viaHTTP.base+"/sources/"+viaHTTP.src+"/events", `{"events":[`+strings.Join(evs, ",")+`]}`))
	c := viaAMQP.connection("GET", "/sources/"+viaAMQP.src+"/connection", nil)
	if err := ehSend(ehContext(t), ehProducer(t, c.AccessKeys.PrimaryConnectionString), nil, map[string]any{"h": "xyz"}, values...); err != nil {
		t.Fatalf("send: %v", err)
	}
	waitRows(t, viaHTTP.table, len(values))
	waitRows(t, viaAMQP.table, len(values))
	metrics := func(f endpointFixture) map[string]nodeMetrics {
		out := map[string]nodeMetrics{}
		for _, n := range listOfNodes(t, f.e.must(200, f.e.call("GET", f.base+"/metrics", nil))) {
			out[n.NodeType+" "+n.Name] = n
		}
		return out
	}
	var h, a map[string]nodeMetrics
	waitFor(t, 10*time.Second, "the lakehouse destinations to count their output", func() bool {
		h, a = metrics(viaHTTP), metrics(viaAMQP)
		return h["Destination lake"].Metrics["OutputEvents"] == 3 && a["Destination lake"].Metrics["OutputEvents"] == 3
	})
	size := valueBytes(values...)
	wantMetrics(t, a["Source app"], map[string]int64{"InputEvents": 3, "InputEventBytes": size, "OutputEvents": 3})
	wantMetrics(t, a["Stream ce-stream"], map[string]int64{"IncomingMessages": 3, "IncomingBytes": size})
	if len(h) != 4 || len(a) != len(h) {
		t.Fatalf("nodes: HTTP %v, AMQP %v", h, a)
	}
	for name, hn := range h {
		an := a[name]
		for m, v := range hn.Metrics {
			got, ok := an.Metrics[m]
			if diff := max(v-got, got-v); !ok || diff > 0 && (m != "WatermarkDelaySeconds" || diff > 1) {
				t.Errorf("%s: %s is %d over HTTP, %d (present %v) over AMQP", name, m, v, got, ok)
			}
		}
	}
}
