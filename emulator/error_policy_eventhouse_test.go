package emulator_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/kustofake"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// eventhousePolicy binds an Eventhouse destination with settings and
// returns a policyStream over it (its lake names the binding only).
func eventhousePolicy(t *testing.T, e *testEnv, settings map[string]any) policyStream {
	t.Helper()
	s, eh, _ := eventhouseStream(t, e)
	body := map[string]any{"type": "Eventhouse", "itemId": eh, "table": "readings"}
	for k, v := range settings {
		body[k] = v
	}
	d := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/destinations", body))
	topic := s.id + "." + s.ds
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.srv.KafkaBootstrap()...), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return policyStream{stream: s, l: lake{s: s, id: eh, dest: d.str("id")}, topic: topic, cl: cl, adm: kadm.NewClient(cl)}
}

// An Eventhouse batch the engine refuses for good (a 400 to its .ingest
// inline, as Kusto answers a CSV it cannot take) is a data error: under
// dlq its records go to the dead-letter topic and the offset moves on.
func TestErrorPolicyDLQEventhouseRefusedBatch(t *testing.T) {
	k := kustofake.Start(t)
	e := startEnv(t, emulator.WithKQLURL(k.URL()))
	p := eventhousePolicy(t, e, map[string]any{"errorPolicy": "dlq"})
	e.must(200, e.call("POST", p.stream.produce, `{"events":[{"value":{"n":1}}]}`))
	k.Inject(kustofake.Fault{Match: ".ingest", Status: 400, Message: "Stream_WrongNumberOfFields: record 1 has 3 fields"})
	offs := p.produce(t, &kgo.Record{Partition: 0, Key: []byte("k"), Value: []byte(`{"n":2}`)})
	waitFor(t, 20*time.Second, "the offset past the record", func() bool { return p.committed(t) == offs[0]+1 })
	if got := kustoRows(t, k.URL(), "telemetry", "readings"); len(got) != 1 {
		t.Fatalf("rows %v, want only the first", got)
	}
	dl := consumeAll(t, e, p.id+".dlq."+p.l.dest, 1)
	h := map[string]string{}
	for _, x := range dl[0].Headers {
		h[x.Key] = string(x.Value)
	}
	if string(dl[0].Value) != `{"n":2}` || string(dl[0].Key) != "k" || h["fabric-emulator-source-offset"] != fmt.Sprint(offs[0]) ||
		h["fabric-emulator-error-metric"] != "DataConversionErrors" {
		t.Fatalf("dead letter %s %s %v", dl[0].Key, dl[0].Value, h)
	}
}

// Under fail, a sink failure that is not about a row (the engine
// unreachable) stops the destination too; once the engine is back, a
// resume delivers the record.
func TestErrorPolicyFailEventhouseEngineDown(t *testing.T) {
	k := kustofake.Start(t)
	e := startEnv(t, emulator.WithKQLURL(k.URL()))
	p := eventhousePolicy(t, e, map[string]any{"errorPolicy": "fail"})
	e.must(200, e.call("POST", p.stream.produce, `{"events":[{"value":{"n":1}}]}`))
	k.Down()
	offs := p.produce(t, &kgo.Record{Partition: 0, Value: []byte(`{"n":2}`)})
	waitFor(t, 20*time.Second, "the destination to stop", func() bool {
		d := p.destination(t)
		return d["status"] == "Failed" && d["delivery"].(map[string]any)["stopped"] == true
	})
	if c := p.committed(t); c != offs[0] {
		t.Fatalf("committed %d, want %d", c, offs[0])
	}
	if err := k.Up(); err != nil {
		t.Fatal(err)
	}
	e.must(200, e.call("POST", "/v1/workspaces/"+p.ws+"/eventstreams/"+p.id+"/destinations/"+p.l.dest+"/resume", `{"startType":"WhenLastStopped"}`))
	waitFor(t, 20*time.Second, "the offset past the record", func() bool { return p.committed(t) == offs[0]+1 })
	if got := kustoRows(t, k.URL(), "telemetry", "readings"); len(got) != 2 {
		t.Fatalf("rows %v, want both", got)
	}
}

// consumeAll reads n records of topic from the start.
func consumeAll(t *testing.T, e *testEnv, topic string, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.srv.KafkaBootstrap()...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []*kgo.Record
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%d of %d records of %s", len(out), n, topic)
		}
		out = append(out, fs.Records()...)
	}
	return out
}
