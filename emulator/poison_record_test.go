package emulator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/fabrictest"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A record the Lakehouse writer cannot take, produced over Kafka (no
// produce-time check), neither stops the destination nor the process: it
// is parked and counted, the records around it land, and a restart over
// the same data dir (the record still in the topic) starts clean.
func TestPoisonRecordOverKafkaIsParked(t *testing.T) {
	dir := t.TempDir()
	e := startEnv(t, emulator.WithDataDir(dir))
	s := newStream(e)
	l := bindLakehouse(t, s, "poison")
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.srv.KafkaBootstrap()...), kgo.DefaultProduceTopic(s.id+"."+s.ds))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	deep := strings.Repeat(`{"a":`, 256) + "1" + strings.Repeat("}", 256)
	recs := []*kgo.Record{{Value: []byte(`{"n":1}`)}, {Value: []byte(deep)}, {Value: []byte(`{"n":2}`)}}
	for _, r := range recs {
		r.Partition = 0
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	waitRows(t, l.dir, 2)
	base := "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/destinations/" + l.dest
	d := decodeAs[fabrictest.Destination](t, e.must(200, e.call("GET", base, nil)))
	if d.Status != "Running" || d.Delivery.RejectedRows != 1 {
		t.Fatalf("destination after the poison record: %+v; want Running with 1 rejected row", d)
	}
	t.Logf("delivery: %+v", d.Delivery)
	e.srv.Close()

	e2 := startEnv(t, emulator.WithDataDir(dir))
	s.e = e2
	e2.must(200, e2.call("POST", s.produce, `{"events":[{"value":{"n":3}}]}`))
	waitRows(t, l.dir, 3)
}
