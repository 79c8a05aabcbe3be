package emulator_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/fabrictest"
	"github.com/twmb/franz-go/pkg/kgo"
)

// nestedArrays is the event: n levels of {"a":[…]} around 1.
func nestedArrays(n int) string {
	return strings.Repeat(`{"a":[`, n) + "1" + strings.Repeat("]}", n)
}

// nestedObjects is an event whose value is n objects deep, the event's own
// object counted.
func nestedObjects(n int) string {
	return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
}

// TestProduceRefusesEventsNoTableCanHold: an object event that no Delta
// reader could read back (too deep, a name with a control character, an
// empty or blank name) is refused at produce time with 400 naming the
// event and the field, and nothing is written (issue 13, findings 1 and 5).
func TestProduceRefusesEventsNoTableCanHold(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	l := bindLakehouse(t, s, "hostile")
	for _, tc := range []struct {
		value, field string
	}{
		{nestedArrays(86), "events[1].value.a[].a[]"},
		{nestedObjects(256), "events[1].value.a.a"},
		{nestedObjects(50), "events[1].value.a.a"},
		{`{"ok":{"\u0000":1}}`, `events[1].value.ok`},
		{`{"":1," ":2}`, "events[1].value"},
		{`{"x\u0007y":1}`, "events[1].value"},
	} {
		body := `{"events":[{"value":{"fine":1}},{"value":` + tc.value + `}]}`
		r := e.call("POST", s.produce, body)
		e.wantError(r, 400, "EventValueNotSupported")
		if !strings.Contains(string(r.Raw), tc.field) {
			t.Errorf("answer does not name %s: %s", tc.field, r.Raw)
		}
	}
	// A string value holding such JSON text becomes a row as well.
	r := e.call("POST", s.produce, map[string]any{"events": []any{map[string]any{"value": nestedArrays(86)}}})
	e.wantError(r, 400, "EventValueNotSupported")
	// Values that are not objects keep the README's rule: stored as text.
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":`+strings.Repeat("[", 300)+strings.Repeat("]", 300)+`}]}`))
	snap := readTable(t, l.dir)
	if len(snap.Rows) != 1 {
		t.Fatalf("%d rows, want 1 (the array as text)", len(snap.Rows))
	}
	// Right at the limit is fine, and delta-rs reads it: as the first
	// record of a table of its own, since schema enforcement would drop
	// it from the table above, whose only column is "value".
	deep := newStream(e)
	ld := bindLakehouse(t, deep, "deep")
	e.must(200, e.call("POST", deep.produce, `{"events":[{"value":`+nestedObjects(32)+`}]}`))
	if snap := readTable(t, ld.dir); len(snap.Rows) != 1 {
		t.Fatalf("%d rows, want 1", len(snap.Rows))
	}
}

// kafkaEnv is an emulator on an external kfake cluster with a data dir,
// with a client that produces to a stream's topic.
type kafkaEnv struct {
	seeds string
	dir   string
	cl    *kgo.Client
}

func newKafkaEnv(t *testing.T) kafkaEnv {
	t.Helper()
	c, seeds := kafkaCluster(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kafkaEnv{seeds: seeds, dir: t.TempDir(), cl: cl}
}

func (k kafkaEnv) start(t *testing.T) *testEnv {
	return startEnv(t, emulator.WithKafka(k.seeds), emulator.WithDataDir(k.dir))
}

func (k kafkaEnv) produce(t *testing.T, topic string, values ...string) {
	t.Helper()
	var recs []*kgo.Record
	for _, v := range values {
		recs = append(recs, &kgo.Record{Topic: topic, Value: []byte(v)})
	}
	if err := k.cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// TestHostileKafkaRecordsAreParked: records the produce route would refuse,
// and records whose names collide, sent straight to the topic as the first
// records of a new table, are parked with their reason; the destination
// goes on, later rows create the table, delta-rs reads it, and the data dir
// starts again with the records still in the topic (issue 13, findings 1,
// 3 and 5).
func TestHostileKafkaRecordsAreParked(t *testing.T) {
	k := newKafkaEnv(t)
	e := k.start(t)
	s := newStream(e)
	l := bindLakehouse(t, s, "fromkafka")
	topic := s.id + "." + s.ds
	hostile := []string{
		`{"A":1,"a":"s"}`, `{"":1," ":2}`, `{"\u0000":1}`,
		nestedObjects(50), nestedArrays(86), nestedObjects(256),
	}
	k.produce(t, topic, hostile...)
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"id":1}}]}`))
	snap := readTable(t, l.dir)
	if len(snap.Rows) != 1 || fmt.Sprint(snap.Rows[0]["id"]) != "1" {
		t.Fatalf("rows %v, want the one good row", snap.Rows)
	}
	wantParked(t, e, s, l, "fromkafka", len(hostile))

	// A clean stop and a start with the records still in the topic.
	e.srv.Close()
	e2 := k.start(t)
	s.e = e2
	e2.must(200, e2.call("POST", s.produce, `{"events":[{"value":{"id":2}}]}`))
	if snap := readTable(t, l.dir); len(snap.Rows) != 2 {
		t.Fatalf("%d rows after restart, want 2", len(snap.Rows))
	}
}

// TestRejectedFirstBatchOverHTTP: the first batch of a new table made only
// of rows that collide (accepted by the produce route: the collision is
// between names that are each valid) and of an empty object (no column to
// make) is parked, and later events land (issue 13, finding 3).
func TestRejectedFirstBatchOverHTTP(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	l := bindLakehouse(t, s, "collide")
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"A":1,"a":"s"}},{"value":{"Id":1,"iD":2}},{"value":{}}]}`))
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"id":7}}]}`))
	if snap := readTable(t, l.dir); len(snap.Rows) != 1 {
		t.Fatalf("%d rows, want 1", len(snap.Rows))
	}
	wantParked(t, e, s, l, "collide", 3)
}

// wantParked checks the destination's count and file of parked rows.
func wantParked(t *testing.T, e *testEnv, s stream, l lake, table string, n int) {
	t.Helper()
	d := e.must(200, e.call("GET", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/destinations/"+l.dest, nil))
	if decodeAs[fabrictest.Destination](t, d).Delivery.RejectedRows != int64(n) {
		t.Fatalf("rejectedRows: %s, want %d", d.Raw, n)
	}
	parked, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(l.dir)), "Files", "_rejected", table, l.dest+".jsonl"))
	if err != nil || strings.Count(string(parked), "\n") != n || !strings.Contains(string(parked), `"reason"`) {
		t.Fatalf("parked rows: %s (%v)", parked, err)
	}
}
