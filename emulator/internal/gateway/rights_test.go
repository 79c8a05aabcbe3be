package gateway

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestRights: a Send key produces and cannot fetch, a Listen key fetches
// and cannot produce, as Event Hubs' claims work.
func TestRights(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	send := e.auth.add(e.gw.Addr(), Grant{KeyID: "send", Topic: testTopic, Rights: Send})
	listen := e.auth.add(e.gw.Addr(), Grant{KeyID: "listen", Topic: testTopic, Rights: Listen})

	p := e.client(send)
	if err := p.ProduceSync(ctx, &kgo.Record{Topic: testTopic, Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatalf("send key produce: %v", err)
	}
	consume := func(pass string) ([]*kgo.Record, error) {
		cl := e.client(pass, kgo.ConsumeTopics(testTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		fs := cl.PollFetches(ctx)
		return fs.Records(), fs.Err0()
	}
	if _, err := consume(send); !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("send key fetch: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	if recs, err := consume(listen); err != nil || len(recs) != 1 || string(recs[0].Value) != "v" {
		t.Fatalf("listen key fetch: %d records, %v", len(recs), err)
	}
	l := e.client(listen, kgo.RequestRetries(0))
	err := l.ProduceSync(ctx, &kgo.Record{Topic: testTopic, Value: []byte("v")}).FirstErr()
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("listen key produce: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
}
