package eventhubs

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azeventhubs"
)

// connString is the connection string an SDK gets for the test server.
func (ts *testServer) connString(keyName, key string) string {
	return fmt.Sprintf("Endpoint=sb://%s;SharedAccessKeyName=%s;SharedAccessKey=%s;EntityPath=es;UseDevelopmentEmulator=true", ts.addr, keyName, key)
}

// sdkContext bounds one SDK test.
func sdkContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestSDKProducerSendsBatches sends a batch with a partition key and one to
// a partition id with azeventhubs, unchanged, and checks what the host got.
func TestSDKProducerSendsBatches(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := sdkContext(t)
	producer, err := azeventhubs.NewProducerClientFromConnectionString(ts.connString("key_x", testKey), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close(ctx)

	props, err := producer.GetEventHubProperties(ctx, nil)
	if err != nil {
		t.Fatalf("GetEventHubProperties: %v", err)
	}
	if props.Name != "es" || fmt.Sprint(props.PartitionIDs) != "[0 1]" {
		t.Fatalf("properties = %+v, want es with partitions [0 1]", props)
	}

	key := "device-7"
	keyed, err := producer.NewEventDataBatch(ctx, &azeventhubs.EventDataBatchOptions{PartitionKey: &key})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		ev := &azeventhubs.EventData{Body: []byte(fmt.Sprintf(`{"n":%d}`, i)), Properties: map[string]any{"source": "sdk", "i": int64(i)}}
		if err := keyed.AddEventData(ev, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := producer.SendEventDataBatch(ctx, keyed, nil); err != nil {
		t.Fatalf("send keyed batch: %v", err)
	}

	pid := "1"
	pinned, err := producer.NewEventDataBatch(ctx, &azeventhubs.EventDataBatchOptions{PartitionID: &pid})
	if err != nil {
		t.Fatal(err)
	}
	if err := pinned.AddEventData(&azeventhubs.EventData{Body: []byte("to partition 1")}, nil); err != nil {
		t.Fatal(err)
	}
	if err := producer.SendEventDataBatch(ctx, pinned, nil); err != nil {
		t.Fatalf("send pinned batch: %v", err)
	}

	sends := ts.host.sendCalls()
	if len(sends) != 2 {
		t.Fatalf("host got %d sends, want 2", len(sends))
	}
	if s := sends[0]; s.partition != -1 || len(s.events) != 10 || s.grant.KeyID != "key_x" || !s.grant.Send {
		t.Fatalf("keyed send = partition %d, %d events, grant %+v", s.partition, len(s.events), s.grant)
	}
	for i, e := range sends[0].events {
		if e.PartitionKey != key || string(e.Body) != fmt.Sprintf(`{"n":%d}`, i) {
			t.Fatalf("event %d = key %q body %q", i, e.PartitionKey, e.Body)
		}
		if v, _ := e.ApplicationProperties.Get("source"); v != "sdk" {
			t.Fatalf("event %d source property = %v", i, v)
		}
		if v, _ := e.ApplicationProperties.Get("i"); v != int64(i) {
			t.Fatalf("event %d i property = %#v", i, v)
		}
	}
	if s := sends[1]; s.partition != 1 || len(s.events) != 1 || string(s.events[0].Body) != "to partition 1" {
		t.Fatalf("pinned send = partition %d, %d events", s.partition, len(s.events))
	}
}

// sendCalls returns the Send calls so far.
func (h *fakeHost) sendCalls() []fakeSend {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]fakeSend(nil), h.sends...)
}

// TestSDKConsumerReceives receives with azeventhubs from earliest and from
// a sequence number, and reads a partition's properties.
func TestSDKConsumerReceives(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := sdkContext(t)
	var events []Event
	for i := range 5 {
		events = append(events, Event{Body: []byte(fmt.Sprintf("e%d", i)), PartitionKey: "k"})
	}
	if err := ts.host.Send(ctx, Grant{}, "es", 0, events); err != nil {
		t.Fatal(err)
	}
	consumer, err := azeventhubs.NewConsumerClientFromConnectionString(ts.connString("key_x", testKey), "", azeventhubs.DefaultConsumerGroup, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close(ctx)

	pp, err := consumer.GetPartitionProperties(ctx, "0", nil)
	if err != nil {
		t.Fatalf("GetPartitionProperties: %v", err)
	}
	if pp.BeginningSequenceNumber != 0 || pp.LastEnqueuedSequenceNumber != 4 || pp.IsEmpty {
		t.Fatalf("partition properties = %+v", pp)
	}

	earliest := true
	got := receive(ctx, t, consumer, azeventhubs.StartPosition{Earliest: &earliest}, 5)
	for i, e := range got {
		if string(e.Body) != fmt.Sprintf("e%d", i) || e.SequenceNumber != int64(i) || e.PartitionKey == nil || *e.PartitionKey != "k" || e.EnqueuedTime == nil {
			t.Fatalf("event %d = body %q seq %d key %v time %v", i, e.Body, e.SequenceNumber, e.PartitionKey, e.EnqueuedTime)
		}
	}
	if got[1].Offset <= got[0].Offset {
		t.Fatalf("offsets %d then %d do not grow", got[0].Offset, got[1].Offset)
	}

	seq := int64(2)
	got = receive(ctx, t, consumer, azeventhubs.StartPosition{SequenceNumber: &seq}, 2)
	if got[0].SequenceNumber != 3 || got[1].SequenceNumber != 4 {
		t.Fatalf("after sequence 2 got %d, %d; want 3, 4", got[0].SequenceNumber, got[1].SequenceNumber)
	}
	got = receive(ctx, t, consumer, azeventhubs.StartPosition{SequenceNumber: &seq, Inclusive: true}, 3)
	if got[0].SequenceNumber != 2 {
		t.Fatalf("from sequence 2 inclusive got %d first", got[0].SequenceNumber)
	}
}

// receive reads n events of partition 0 from a start position.
func receive(ctx context.Context, t *testing.T, c *azeventhubs.ConsumerClient, start azeventhubs.StartPosition, n int) []*azeventhubs.ReceivedEventData {
	t.Helper()
	pc, err := c.NewPartitionClient("0", &azeventhubs.PartitionClientOptions{StartPosition: start})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	var got []*azeventhubs.ReceivedEventData
	for len(got) < n {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		evs, err := pc.ReceiveEvents(rctx, n-len(got), nil)
		cancel()
		if err != nil {
			t.Fatalf("ReceiveEvents after %d events: %v", len(got), err)
		}
		got = append(got, evs...)
	}
	return got
}

// TestSDKWrongKeyIsRefused checks that a wrong key fails the SDK's send
// with Event Hubs' unauthorized error and that nothing reaches the host.
func TestSDKWrongKeyIsRefused(t *testing.T) {
	ts := startServer(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	opts := &azeventhubs.ProducerClientOptions{RetryOptions: azeventhubs.RetryOptions{MaxRetries: -1}}
	producer, err := azeventhubs.NewProducerClientFromConnectionString(ts.connString("key_x", "d3Jvbmc="), "", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close(ctx)
	_, err = producer.GetEventHubProperties(ctx, nil)
	if err == nil {
		t.Fatal("GetEventHubProperties with a wrong key succeeded")
	}
	if !strings.Contains(err.Error(), "signature does not match") {
		t.Fatalf("error %q does not say the signature is wrong", err)
	}
	if n := len(ts.host.sendCalls()); n != 0 {
		t.Fatalf("host got %d sends", n)
	}
}
