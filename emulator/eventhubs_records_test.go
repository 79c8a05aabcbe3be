package emulator_test

import (
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azeventhubs"
	goamqp "github.com/Azure/go-amqp"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestEventHubsPropertiesAndKafkaHeaders: an AMQP client (go-amqp, SASL
// PLAIN with the connection string) sends an event with a body only (no
// properties section: azeventhubs always sets a message id), then
// azeventhubs, to the same partition, one with message id, content type
// and correlation id, and one with an application property. A Kafka
// consumer reads the first with no header at all (as a Kafka producer of
// the same body would have made it), the others with the
// x-opt-amqp-properties marker (and the property's header); an AMQP
// receiver gets the message id, content type, correlation id and the typed
// property back.
func TestEventHubsPropertiesAndKafkaHeaders(t *testing.T) {
	f := deployEndpoint(t)
	ctx := ehContext(t)
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	p := ehProducer(t, c.AccessKeys.PrimaryConnectionString)
	zero := "0"
	sendBare(t, ctx, f.e.srv.AMQPEndpoint(), c.AccessKeys.PrimaryConnectionString, c.EventHubName+"/Partitions/0", []byte(`{"n":"plain"}`))
	b, err := p.NewEventDataBatch(ctx, &azeventhubs.EventDataBatchOptions{PartitionID: &zero})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []*azeventhubs.EventData{
		{Body: []byte(`{"n":"props"}`), MessageID: to("m-1"), ContentType: to("application/json"), CorrelationID: "c-1"},
		{Body: []byte(`{"n":"app"}`), Properties: map[string]any{"k": int64(9)}},
	} {
		if err := b.AddEventData(ev, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.SendEventDataBatch(ctx, b, nil); err != nil {
		t.Fatalf("send: %v", err)
	}

	d := f.connection("GET", "/destinations/"+f.out+"/connection", nil)
	k := saslClient(t, d.FullyQualifiedNamespace, d.AccessKeys.PrimaryConnectionString, kgo.ConsumeTopics(d.EventHubName),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	headers := map[string][]string{}
	for len(headers) < 3 {
		fs := k.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("kafka fetch: %v", err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			keys := []string{}
			for _, h := range r.Headers {
				keys = append(keys, h.Key)
			}
			headers[string(r.Value)] = keys
		})
	}
	want := map[string][]string{`{"n":"plain"}`: {}, `{"n":"props"}`: {"x-opt-amqp-properties"}, `{"n":"app"}`: {"k", "x-opt-amqp-properties"}}
	for body, keys := range want {
		if got := headers[body]; len(got) != len(keys) || (len(keys) > 0 && got[len(got)-1] != keys[len(keys)-1]) {
			t.Errorf("kafka record %s has headers %q, want %q", body, got, keys)
		}
	}

	cc, err := azeventhubs.NewConsumerClientFromConnectionString(d.AccessKeys.PrimaryConnectionString, "", azeventhubs.DefaultConsumerGroup, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close(ctx)
	pc, err := cc.NewPartitionClient("0", &azeventhubs.PartitionClientOptions{StartPosition: azeventhubs.StartPosition{Earliest: to(true)}})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	got, err := pc.ReceiveEvents(rctx, 3, nil)
	if err != nil || len(got) != 3 {
		t.Fatalf("received %d events, %v", len(got), err)
	}
	plain, props, app := got[0], got[1], got[2]
	if plain.MessageID != nil || plain.ContentType != nil || plain.CorrelationID != nil || len(plain.Properties) != 0 {
		t.Errorf("plain event: %+v (message id %q)", plain.EventData, deref(plain.MessageID))
	}
	if props.MessageID == nil || *props.MessageID != "m-1" || props.ContentType == nil || *props.ContentType != "application/json" || props.CorrelationID != "c-1" {
		t.Errorf("event with properties: message id %v, content type %v, correlation id %v", props.MessageID, props.ContentType, props.CorrelationID)
	}
	if app.Properties["k"] != int64(9) {
		t.Errorf("event with an application property: %#v", app.Properties)
	}
}

// sendBare sends one message whose only section is its data body with
// go-amqp over plain AMQP, authenticated by SASL PLAIN with the
// connection string.
func sendBare(t *testing.T, ctx context.Context, addr, conn, target string, body []byte) {
	t.Helper()
	c, err := goamqp.Dial(ctx, "amqp://"+addr, &goamqp.ConnOptions{SASLType: goamqp.SASLTypePlain("$ConnectionString", conn)})
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer c.Close()
	s, err := c.NewSession(ctx, nil)
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	snd, err := s.NewSender(ctx, target, nil)
	if err != nil {
		t.Fatalf("attach %s: %v", target, err)
	}
	if err := snd.Send(ctx, &goamqp.Message{Data: [][]byte{body}}, nil); err != nil {
		t.Fatalf("send: %v", err)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
