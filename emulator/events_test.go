package emulator_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/fabrictest"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// stream is an Eventstream ready for produce and consume.
type stream struct {
	e              *testEnv
	ws, id, ds     string
	produce, reads string
}

func newStream(e *testEnv) stream {
	ws := e.workspace("ws-" + fmt.Sprint(time.Now().UnixNano()))
	id, ds := e.eventstream(ws, "es")
	return stream{e: e, ws: ws, id: id, ds: ds,
		produce: "/v1/workspaces/" + ws + "/eventstreams/" + id + "/sources/" + ds + "/events",
		reads:   "/v1/eventstreams/" + id + "/sources/" + ds + "/events"}
}

// record is a record of the consume route; its headers are fabrictest's.
type record struct {
	Key, Value []byte
	Partition  int32
	Offset     int64
	// Timestamp stays the route's text: the tests check its format.
	Timestamp string
	Headers   []fabrictest.Header
}

// consume reads with the given query and decodes the records.
func (s stream) consume(query string) ([]record, map[string]any) {
	s.e.t.Helper()
	r := s.e.must(200, s.e.call("GET", s.reads+query, nil))
	var body struct{ Value []record }
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		s.e.t.Fatal(err)
	}
	return body.Value, r.Body
}

func TestProduceConsumeThousand(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	events := make([]map[string]any, 1000)
	want := map[string]string{} // value → key
	for i := range events {
		v := fmt.Sprintf(`{"n":%d,"txt":"é—%d"}`, i, i)
		ev := map[string]any{"value": json.RawMessage(v)}
		if i%3 != 0 {
			ev["key"] = fmt.Sprintf("k%d", i%7)
		}
		events[i] = ev
		want[v] = fmt.Sprint(ev["key"])
	}
	r := e.must(200, e.call("POST", s.produce, map[string]any{"events": events}))
	if r.Body["produced"].(float64) != 1000 || len(r.Body["events"].([]any)) != 1000 {
		t.Fatalf("produce answered %v produced", r.Body["produced"])
	}
	sum := 0.0
	for _, p := range r.Body["partitions"].([]any) {
		sum += p.(map[string]any)["count"].(float64)
	}
	if sum != 1000 {
		t.Fatalf("partition counts add up to %v", sum)
	}
	recs, body := s.consume("")
	if len(recs) != 1000 || body["complete"] != true {
		t.Fatalf("consumed %d records (complete=%v), want 1000", len(recs), body["complete"])
	}
	parts := map[int32]bool{}
	for _, rec := range recs {
		k, ok := want[string(rec.Value)]
		if !ok {
			t.Fatalf("unexpected value %q", rec.Value)
		}
		if (k == "<nil>" && rec.Key != nil) || (k != "<nil>" && string(rec.Key) != k) {
			t.Fatalf("value %s: key %q, want %s", rec.Value, rec.Key, k)
		}
		delete(want, string(rec.Value))
		parts[rec.Partition] = true
	}
	if len(want) != 0 || len(parts) < 2 {
		t.Fatalf("%d values not read back; %d partitions used", len(want), len(parts))
	}
	// The answer's positions match the records read back.
	pos := r.Body["events"].([]any)[1].(map[string]any)
	found := false
	for _, rec := range recs {
		if rec.Partition == int32(pos["partition"].(float64)) && rec.Offset == int64(pos["offset"].(float64)) {
			found = string(rec.Value) == `{"n":1,"txt":"é—1"}`
		}
	}
	if !found {
		t.Fatalf("events[1] reported at %v, but that record is not events[1]", pos)
	}
}

func TestProduceValueShapes(t *testing.T) {
	e := startEnv(t, emulator.WithPartitions(1))
	s := newStream(e)
	e.must(200, e.call("POST", s.produce, `{"events":[
		{"value": "plain text"},
		{"value": { "a" : [1, 2.50, true], "b": null }},
		{"value": 42},
		{"value": null, "key": "tomb"},
		{"key": {"id": 7}, "value": "x", "headers": {"z": "1", "a": null}, "timestamp": "2026-01-02T03:04:05.678Z"},
		{"value": "y", "headers": [{"key": "dup", "value": "1"}, {"key": "dup", "value": "2"}], "timestamp": 1700000000000}
	]}`))
	recs, _ := s.consume("")
	if len(recs) != 6 {
		t.Fatalf("%d records", len(recs))
	}
	wantValues := []string{"plain text", `{"a":[1,2.50,true],"b":null}`, "42", "", "x", "y"}
	for i, w := range wantValues {
		if string(recs[i].Value) != w {
			t.Errorf("record %d value %q, want %q", i, recs[i].Value, w)
		}
	}
	if recs[3].Value != nil || string(recs[3].Key) != "tomb" {
		t.Errorf("null value is not a tombstone: %+v", recs[3])
	}
	if string(recs[4].Key) != `{"id":7}` || recs[4].Timestamp != "2026-01-02T03:04:05.678Z" {
		t.Errorf("record 4: key %q timestamp %s", recs[4].Key, recs[4].Timestamp)
	}
	if h := recs[4].Headers; len(h) != 2 || h[0].Key != "z" || string(h[0].Value) != "1" || h[1].Key != "a" || h[1].Value != nil {
		t.Errorf("record 4 headers %+v", h)
	}
	if h := recs[5].Headers; len(h) != 2 || string(h[1].Value) != "2" || recs[5].Timestamp != "2023-11-14T22:13:20.000Z" {
		t.Errorf("record 5 headers %+v, timestamp %s", h, recs[5].Timestamp)
	}
}

func TestProduceRejectsBadInputAndWritesNothing(t *testing.T) {
	e := startEnv(t, emulator.WithMaxRequestBytes(64<<10))
	s := newStream(e)
	good := `{"value": 1}`
	for _, tc := range []struct {
		name, body string
		status     int
		code, in   string
	}{
		{"malformed", `{"events": [` + good + `,`, 400, "InvalidRequest", ""},
		{"not json", `hello`, 400, "InvalidRequest", ""},
		{"empty body", ``, 400, "InvalidRequest", ""},
		{"missing events", `{}`, 400, "InvalidInput", "events"},
		{"empty events", `{"events": []}`, 400, "InvalidInput", "events"},
		{"events not a list", `{"events": {"value": 1}}`, 400, "InvalidInput", "events"},
		{"unknown top-level field", `{"events": [` + good + `], "extra": 1}`, 400, "InvalidInput", "extra"},
		{"event not an object", `{"events": [` + good + `, "x"]}`, 400, "InvalidInput", "events[1]"},
		{"missing value", `{"events": [` + good + `, {"key": "k"}]}`, 400, "InvalidInput", "events[1].value"},
		{"unknown event field", `{"events": [` + good + `, {"value": 1, "partiton": 2}]}`, 400, "InvalidInput", "events[1].partiton"},
		{"header not a string", `{"events": [` + good + `, {"value": 1, "headers": {"h": 5}}]}`, 400, "InvalidInput", "events[1].headers.h"},
		{"headers wrong type", `{"events": [` + good + `, {"value": 1, "headers": 5}]}`, 400, "InvalidInput", "events[1].headers"},
		{"header list without key", `{"events": [` + good + `, {"value": 1, "headers": [{"value": "v"}]}]}`, 400, "InvalidInput", "events[1].headers[0].key"},
		{"bad timestamp", `{"events": [` + good + `, {"value": 1, "timestamp": "yesterday"}]}`, 400, "InvalidInput", "events[1].timestamp"},
		{"body over the limit", `{"events": [{"value": "` + strings.Repeat("a", 70<<10) + `"}]}`, 413, "RequestBodyTooLarge", "65536"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.call("POST", s.produce, tc.body)
			e.wantError(r, tc.status, tc.code)
			if !strings.Contains(string(r.Raw), tc.in) {
				t.Fatalf("error does not name %q: %s", tc.in, r.Raw)
			}
		})
	}
	if recs, _ := s.consume(""); len(recs) != 0 {
		t.Fatalf("%d records reached Kafka from rejected requests", len(recs))
	}
}

func TestProduceRejectsOversizedEvent(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	big := strings.Repeat("a", 1_000_000)
	r := e.call("POST", s.produce, map[string]any{"events": []any{map[string]any{"value": "ok"}, map[string]any{"value": big}}})
	e.wantError(r, 413, "EventTooLarge")
	if !strings.Contains(r.str("message"), "events[1]") {
		t.Fatalf("message does not name the event: %s", r.str("message"))
	}
	if recs, _ := s.consume(""); len(recs) != 0 {
		t.Fatalf("%d records written", len(recs))
	}
}

func TestConsumeOffsets(t *testing.T) {
	e := startEnv(t, emulator.WithPartitions(2))
	s := newStream(e)
	events := []any{}
	for i := range 10 {
		events = append(events, map[string]any{"key": fmt.Sprint(i % 2), "value": i})
	}
	e.must(200, e.call("POST", s.produce, map[string]any{"events": events}))
	all, _ := s.consume("?startingOffsets=earliest&endingOffsets=latest")
	if len(all) != 10 {
		t.Fatalf("%d records", len(all))
	}
	per := map[int32]int{}
	for _, r := range all {
		per[r.Partition]++
	}
	topic := s.id + "." + s.ds
	q := func(v string) string { return url.QueryEscape(v) }

	// Per-partition JSON, with and without the topic key, -2 and -1.
	p0 := all[0].Partition
	recs, _ := s.consume(fmt.Sprintf("?startingOffsets=%s", q(fmt.Sprintf(`{%q:{"%d":2}}`, topic, p0))))
	if len(recs) != 8 {
		t.Fatalf("from offset 2 of partition %d: %d records, want 8", p0, len(recs))
	}
	recs, _ = s.consume(fmt.Sprintf("?startingOffsets=%s&endingOffsets=%s", q(fmt.Sprintf(`{"%d":-2}`, p0)), q(fmt.Sprintf(`{"%d":3,"%d":0}`, p0, 1-p0))))
	if len(recs) != 3 {
		t.Fatalf("range [earliest,3) of one partition: %d records, want 3", len(recs))
	}
	recs, _ = s.consume("?startingOffsets=latest")
	if len(recs) != 0 {
		t.Fatalf("from latest: %d records", len(recs))
	}

	// Paging with maxRecords and nextOffsets covers everything exactly once.
	seen, start, calls := map[string]bool{}, "earliest", 0
	for {
		recs, body := s.consume("?maxRecords=3&startingOffsets=" + q(start))
		calls++
		for _, r := range recs {
			k := fmt.Sprintf("%d/%d", r.Partition, r.Offset)
			if seen[k] {
				t.Fatalf("record %s read twice", k)
			}
			seen[k] = true
		}
		if body["complete"] == true || calls > 10 {
			break
		}
		next, _ := json.Marshal(body["nextOffsets"])
		start = string(next)
	}
	if len(seen) != 10 {
		t.Fatalf("paging read %d distinct records in %d calls", len(seen), calls)
	}

	// An ending offset beyond the high watermark waits no longer than timeoutMs.
	t0 := time.Now()
	recs, body := s.consume(fmt.Sprintf("?endingOffsets=%s&timeoutMs=300", q(fmt.Sprintf(`{"%d":100}`, p0))))
	if body["complete"] != false || len(recs) != 10 || time.Since(t0) > 5*time.Second {
		t.Fatalf("beyond the end: complete=%v, %d records after %s", body["complete"], len(recs), time.Since(t0))
	}

	for _, bad := range []string{
		"?startingOffsets=soonest",
		"?endingOffsets=earliest",
		"?startingOffsets=" + q(`{"other-topic":{"0":1}}`),
		"?startingOffsets=" + q(`{"9":0}`),
		"?startingOffsets=" + q(`{"0":"x"}`),
		"?maxRecords=0",
		"?timeoutMs=-1",
	} {
		e.wantError(e.call("GET", s.reads+bad, nil), 400, "InvalidInput")
	}
}

func TestUnknownIDs(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	const nope = "00000000-0000-0000-0000-00000000dead"
	e.wantError(e.call("GET", "/v1/eventstreams/"+nope+"/sources/"+s.ds, nil), 404, "ItemNotFound")
	e.wantError(e.call("GET", "/v1/eventstreams/"+s.id+"/sources/"+nope, nil), 404, "DatasourceNotFound")
	e.wantError(e.call("GET", "/v1/eventstreams/"+nope+"/sources/"+s.ds+"/events", nil), 404, "ItemNotFound")
	e.wantError(e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+nope+"/sources/"+s.ds+"/events", `{"events":[{"value":1}]}`), 404, "ItemNotFound")
	e.wantError(e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/sources/"+nope+"/events", `{"events":[{"value":1}]}`), 404, "DatasourceNotFound")
	e.wantError(e.call("POST", "/v1/workspaces/"+nope+"/eventstreams/"+s.id+"/sources/"+s.ds+"/events", `{"events":[{"value":1}]}`), 404, "WorkspaceNotFound")
	// A Notebook's id is not an Eventstream.
	nb := e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/items", map[string]any{"displayName": "nb", "type": "Notebook"})).str("id")
	e.wantError(e.call("GET", "/v1/eventstreams/"+nb+"/sources/"+s.ds, nil), 404, "ItemNotFound")
}

func TestResolve(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	r := e.must(200, e.call("GET", "/v1/eventstreams/"+s.id+"/sources/"+s.ds, nil))
	if r.str("bootstrapServers") != strings.Join(e.srv.KafkaBootstrap(), ",") || r.str("topic") != s.id+"."+s.ds ||
		r.str("itemId") != s.id || r.str("datasourceId") != s.ds {
		t.Fatalf("resolve answered %s", r.Raw)
	}
}

func TestKafkaNone(t *testing.T) {
	e := startEnv(t, emulator.WithKafka("none"))
	s := newStream(e) // create still succeeds
	for _, r := range []resp{
		e.call("GET", "/v1/eventstreams/"+s.id+"/sources/"+s.ds, nil),
		e.call("POST", s.produce, `{"events":[{"value":1}]}`),
		e.call("GET", s.reads, nil),
	} {
		e.wantError(r, 501, "KafkaNotConfigured")
		if !strings.Contains(r.str("message"), "--kafka") {
			t.Fatalf("501 does not say how to attach a broker: %s", r.str("message"))
		}
	}
	e.must(200, e.call("DELETE", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id, nil))
}

func TestRestartKeepsState(t *testing.T) {
	dir := t.TempDir()
	e := startEnv(t, emulator.WithDataDir(dir))
	s := newStream(e)
	const bob = "b0b00000-0000-0000-0000-000000000001"
	e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/roleAssignments", map[string]any{"principal": map[string]any{"id": bob, "type": "User"}, "role": "Viewer"}))
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":"before restart"}]}`))
	oldToken := e.token
	e.srv.Close()

	e2 := startEnv(t, emulator.WithDataDir(dir))
	s.e = e2
	e2.must(200, e2.callAs(oldToken, "GET", "/v1/workspaces/"+s.ws, nil)) // the signing key survived
	if r := e2.must(200, e2.call("GET", "/v1/workspaces/"+s.ws+"/roleAssignments/"+bob, nil)); r.str("role") != "Viewer" {
		t.Fatalf("role after restart: %s", r.Raw)
	}
	got := e2.must(200, e2.call("GET", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id, nil))
	if ds := got.Body["properties"].(map[string]any)["streams"].([]any)[0].(map[string]any)["id"]; ds != s.ds {
		t.Fatalf("datasource after restart %v, want %s", ds, s.ds)
	}
	e2.must(200, e2.call("POST", s.produce, `{"events":[{"value":"after restart"}]}`))
	recs, _ := s.consume("")
	if len(recs) != 2 {
		t.Fatalf("%d records after restart, want 2", len(recs))
	}
}

// TestBrokerFailureAnswers502 makes a real Kafka-protocol broker refuse every
// produce and checks that nothing is reported as produced.
func TestBrokerFailureAnswers502(t *testing.T) {
	c, seeds := kafkaCluster(t)
	e := startEnv(t, emulator.WithKafka(seeds))
	s := newStream(e)
	c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		preq := req.(*kmsg.ProduceRequest)
		resp := preq.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range preq.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = kerr.InvalidRecord.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	r := e.call("POST", s.produce, `{"events":[{"value":1},{"value":2}]}`)
	e.wantError(r, 502, "KafkaUnavailable")
	if !strings.Contains(r.str("message"), "2 of 2") {
		t.Fatalf("502 does not say what was lost: %s", r.str("message"))
	}
	c.DropControl()
	if recs, _ := s.consume(""); len(recs) != 0 {
		t.Fatalf("%d records written by a refused produce", len(recs))
	}
}

func TestCreateEventstreamWithUnreachableBroker(t *testing.T) {
	e := startEnv(t, emulator.WithKafka("127.0.0.1:1"))
	ws := e.workspace("w")
	done := make(chan resp, 1)
	go func() {
		done <- e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "es"})
	}()
	select {
	case r := <-done:
		e.wantError(r, 502, "KafkaUnavailable")
	case <-time.After(60 * time.Second):
		t.Fatal("create hangs on an unreachable broker")
	}
	// Nothing half-made: the item is not there, and the name is free again.
	if n := len(e.must(200, e.call("GET", "/v1/workspaces/"+ws+"/items", nil)).Body["value"].([]any)); n != 0 {
		t.Fatalf("%d items left behind", n)
	}
}

// TestProduceHistoricalTimestamps: an event-time far in the past is data,
// not a delivery deadline.
func TestProduceHistoricalTimestamps(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	e.must(200, e.call("POST", s.produce, `{"events":[{"key":"k","value":"a","timestamp":1700000000000},{"key":"k","value":"b","timestamp":"2024-02-29T12:34:56Z"},{"key":"j","value":"c"}]}`))
	recs, _ := s.consume("")
	got := map[string]string{}
	for _, r := range recs {
		got[string(r.Value)] = r.Timestamp
	}
	if len(recs) != 3 || got["a"] != "2023-11-14T22:13:20.000Z" || got["b"] != "2024-02-29T12:34:56.000Z" {
		t.Fatalf("records %v", got)
	}
}

func TestProduceBinaryPayloads(t *testing.T) {
	e := startEnv(t, emulator.WithPartitions(1))
	s := newStream(e)
	e.must(200, e.call("POST", s.produce, `{"events":[{"keyBase64":"AP8=","valueBase64":"/wABAgOA"},{"key":"k","valueBase64":""}]}`))
	recs, _ := s.consume("")
	if len(recs) != 2 || string(recs[0].Key) != "\x00\xff" || string(recs[0].Value) != "\xff\x00\x01\x02\x03\x80" || len(recs[1].Value) != 0 || recs[1].Value == nil {
		t.Fatalf("records %+v", recs)
	}
	e.wantError(e.call("POST", s.produce, `{"events":[{"value":"x","valueBase64":"eA=="}]}`), 400, "InvalidInput")
	e.wantError(e.call("POST", s.produce, `{"events":[{"valueBase64":"not base64!"}]}`), 400, "InvalidInput")
}

func TestResolveAdvertisedAndRemoteTokens(t *testing.T) {
	e := startEnv(t, emulator.WithKafkaAdvertised("kafka.example:9092", "kafka2.example:9092"), emulator.WithRemoteTokens())
	s := newStream(e)
	if r := e.must(200, e.call("GET", "/v1/eventstreams/"+s.id+"/sources/"+s.ds, nil)); r.str("bootstrapServers") != "kafka.example:9092,kafka2.example:9092" {
		t.Fatalf("resolve: %s", r.Raw)
	}
	req, _ := http.NewRequest("POST", "/_emulator/token", nil)
	req.RemoteAddr = "192.0.2.10:5555"
	rec := newRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("remote token with WithRemoteTokens: %d", rec.Code)
	}
}
