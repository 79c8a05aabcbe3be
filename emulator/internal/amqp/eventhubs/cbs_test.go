package eventhubs

import (
	"context"
	"testing"
	"time"

	goamqp "github.com/Azure/go-amqp"
)

// rpc sends one request on node and returns the reply.
func rpc(ctx context.Context, t *testing.T, s *goamqp.Session, node string, req *goamqp.Message) *goamqp.Message {
	t.Helper()
	snd, err := s.NewSender(ctx, node, nil)
	if err != nil {
		t.Fatalf("attach %s sender: %v", node, err)
	}
	defer snd.Close(ctx)
	rcv, err := s.NewReceiver(ctx, node, &goamqp.ReceiverOptions{TargetAddress: "reply-" + node})
	if err != nil {
		t.Fatalf("attach %s receiver: %v", node, err)
	}
	defer rcv.Close(ctx)
	req.Properties = &goamqp.MessageProperties{MessageID: "req-1", ReplyTo: ptr("reply-" + node)}
	if err := snd.Send(ctx, req, nil); err != nil {
		t.Fatalf("send to %s: %v", node, err)
	}
	res, err := rcv.Receive(ctx, nil)
	if err != nil {
		t.Fatalf("receive from %s: %v", node, err)
	}
	rcv.AcceptMessage(ctx, res)
	if res.Properties == nil || res.Properties.CorrelationID != "req-1" {
		t.Fatalf("reply properties %+v do not correlate req-1", res.Properties)
	}
	return res
}

// putToken asks $cbs to take a token and returns the status code.
func putToken(ctx context.Context, t *testing.T, s *goamqp.Session, typ, audience, token string) (int32, string) {
	t.Helper()
	res := rpc(ctx, t, s, "$cbs", &goamqp.Message{Value: token, ApplicationProperties: map[string]any{
		"operation": "put-token", "type": typ, "name": audience, "expiration": time.Now().Add(time.Hour),
	}})
	code, _ := res.ApplicationProperties["status-code"].(int32)
	desc, _ := res.ApplicationProperties["status-description"].(string)
	return code, desc
}

// TestCBSPutToken puts good, forged and expired SAS tokens and a JWT, and
// checks which links they open.
func TestCBSPutToken(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testCtx(t)
	s := newSession(t, dial(t, ts, goamqp.SASLTypeAnonymous()))
	aud := "amqp://" + ts.addr + "/es"
	if code, desc := putToken(ctx, t, s, TokenSAS, aud, SignSAS(aud, "key_x", "d3Jvbmc=", time.Now().Add(time.Hour))); code != 401 {
		t.Fatalf("forged token: status %d %q, want 401", code, desc)
	}
	if code, _ := putToken(ctx, t, s, TokenSAS, aud, SignSAS(aud, "key_x", testKey, time.Now().Add(-time.Minute))); code != 401 {
		t.Fatalf("expired token: status %d, want 401", code)
	}
	other := "amqp://" + ts.addr + "/other"
	if code, _ := putToken(ctx, t, s, TokenSAS, aud, SignSAS(other, "key_x", testKey, time.Now().Add(time.Hour))); code != 401 {
		t.Fatalf("token for another entity: status %d, want 401", code)
	}
	if _, err := s.NewSender(ctx, "es", nil); condition(err) != "amqp:unauthorized-access" {
		t.Fatalf("sender after refused tokens: %v", err)
	}
	if code, desc := putToken(ctx, t, s, TokenSAS, aud, SignSAS(aud, "key_x", testKey, time.Now().Add(time.Hour))); code != 202 {
		t.Fatalf("good token: status %d %q, want 202", code, desc)
	}
	if _, err := s.NewSender(ctx, "es", nil); err != nil {
		t.Fatalf("sender after a good token: %v", err)
	}
	if code, _ := putToken(ctx, t, s, TokenJWT, "https://eventhubs.azure.net/.default", "good-jwt"); code != 202 {
		t.Fatalf("jwt: status %d, want 202", code)
	}
	res := rpc(ctx, t, s, "$cbs", &goamqp.Message{Value: "x", ApplicationProperties: map[string]any{"operation": "delete-token"}})
	if code := res.ApplicationProperties["status-code"]; code != int32(400) {
		t.Fatalf("unknown operation: status %v, want 400", code)
	}
}

// TestManagementRead reads an event hub and a partition on $management.
func TestManagementRead(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testCtx(t)
	if err := ts.host.Send(ctx, Grant{}, "es", 1, []Event{{Body: []byte("a")}, {Body: []byte("bb")}}); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, dial(t, ts, plain()))
	res := rpc(ctx, t, s, "$management", &goamqp.Message{ApplicationProperties: map[string]any{
		"operation": "READ", "name": "es", "type": "com.microsoft:eventhub",
	}})
	m, _ := res.Value.(map[string]any)
	if ids, _ := m["partition_ids"].([]string); len(ids) != 2 || ids[1] != "1" || m["partition_count"] != int32(2) || m["name"] != "es" {
		t.Fatalf("event hub READ = %v", res.Value)
	}
	if ct, _ := m["created_at"].(time.Time); !ct.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Fatalf("created_at = %v", m["created_at"])
	}
	res = rpc(ctx, t, s, "$management", &goamqp.Message{ApplicationProperties: map[string]any{
		"operation": "READ", "name": "es", "type": "com.microsoft:partition", "partition": "1",
	}})
	m, _ = res.Value.(map[string]any)
	if m["begin_sequence_number"] != int64(0) || m["last_enqueued_sequence_number"] != int64(1) || m["last_enqueued_offset"] != "2" || m["is_partition_empty"] != false {
		t.Fatalf("partition READ = %v", res.Value)
	}
	res = rpc(ctx, t, s, "$management", &goamqp.Message{ApplicationProperties: map[string]any{
		"operation": "READ", "name": "nohub", "type": "com.microsoft:eventhub",
	}})
	if code := res.ApplicationProperties["status-code"]; code != int32(404) {
		t.Fatalf("READ of an unknown hub: status %v, want 404", code)
	}
	anon := newSession(t, dial(t, ts, goamqp.SASLTypeAnonymous()))
	res = rpc(ctx, t, anon, "$management", &goamqp.Message{ApplicationProperties: map[string]any{
		"operation": "READ", "name": "es", "type": "com.microsoft:eventhub",
	}})
	if code := res.ApplicationProperties["status-code"]; code != int32(401) {
		t.Fatalf("READ without a token: status %v, want 401", code)
	}
}
