package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The data insights follow fabric-docs "Monitor the status and performance
// of an eventstream" (metric names per node) and "Runtime logs" (by level,
// with a keyword filter, newest first).

// nodeMetrics is a node of a metrics answer.
type nodeMetrics struct {
	ID, Name, Type, NodeType string
	Metrics                  map[string]int64
}

func (s stream) metricsOf(kind, id string) nodeMetrics {
	s.e.t.Helper()
	r := s.e.must(200, s.e.call("GET", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/"+kind+"/"+id+"/metrics", nil))
	return decodeAs[nodeMetrics](s.e.t, r)
}

// wantMetrics fails unless every metric in want has its value.
func wantMetrics(t *testing.T, n nodeMetrics, want map[string]int64) {
	t.Helper()
	for k, v := range want {
		if got, ok := n.Metrics[k]; !ok || got != v {
			t.Errorf("%s %s: %s = %d (present %v), want %d; all: %v", n.NodeType, n.ID, k, got, ok, v, n.Metrics)
		}
	}
}

// valueBytes is the total length of the compact JSON of values.
func valueBytes(values ...string) int64 {
	var n int64
	for _, v := range values {
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(v)); err != nil {
			panic(err)
		}
		n += int64(b.Len())
	}
	return n
}

func produceValues(s stream, values ...string) {
	s.e.t.Helper()
	evs := make([]string, len(values))
	for i, v := range values {
		evs[i] = `{"value":` + v + `}`
	}
	s.e.must(200, s.e.call("POST", s.produce, `{"events":[`+strings.Join(evs, ",")+`]}`))
}

func TestDataInsightsCountDestinationAndStream(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	lk := bindLakehouse(t, s, "orders")
	vals := []string{`{"id":1,"a":"x"}`, `{"id":2,"a":"yy"}`, `{"id":3,"a":"z"}`}
	produceValues(s, vals...)
	size := valueBytes(vals...)

	wantMetrics(t, s.metricsOf("destinations", lk.dest), map[string]int64{
		"InputEvents": 3, "InputEventBytes": size, "OutputEvents": 3, "OutputEventBytes": size,
		"BackloggedInputEvents": 0, "RuntimeErrors": 0, "DataConversionErrors": 0, "DeserializationErrors": 0,
	})
	wantMetrics(t, s.metricsOf("streams", s.ds), map[string]int64{
		"IncomingMessages": 3, "IncomingBytes": size, "OutgoingMessages": 3, "OutgoingBytes": size,
	})

	// A value that is not a JSON object is a deserialization error of a
	// Json input; the row is still handled as before (written or rejected).
	produceValues(s, `"plain text"`)
	d := s.metricsOf("destinations", lk.dest)
	wantMetrics(t, d, map[string]int64{"InputEvents": 4, "InputEventBytes": size + int64(len("plain text")), "DeserializationErrors": 1})
	if got := d.Metrics["OutputEvents"] + d.Metrics["DataConversionErrors"] + d.Metrics["RuntimeErrors"]; got != 4 {
		t.Errorf("output %d + conversion errors %d + runtime errors %d = %d, want the 4 input events", d.Metrics["OutputEvents"],
			d.Metrics["DataConversionErrors"], d.Metrics["RuntimeErrors"], got)
	}

	// The whole Eventstream: every node with the id the topology renders.
	all := e.must(200, e.call("GET", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/metrics", nil))
	nodes := listOfNodes(t, all)
	byID := map[string]nodeMetrics{}
	for _, n := range nodes {
		byID[n.ID] = n
	}
	if n := byID[lk.dest]; n.NodeType != "Destination" || n.Type != "Lakehouse" || n.Metrics["InputEvents"] != 4 {
		t.Errorf("destination node %+v", n)
	}
	if n := byID[s.ds]; n.NodeType != "Stream" || n.Type != "DefaultStream" || n.Metrics["IncomingMessages"] != 4 {
		t.Errorf("stream node %+v", n)
	}
	topo := e.must(200, e.call("GET", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/topology", nil))
	for _, list := range []string{"streams", "destinations"} {
		for _, n := range topo.Body[list].([]any) {
			if id := n.(map[string]any)["id"].(string); byID[id].ID == "" {
				t.Errorf("topology %s node %s has no metrics", list, id)
			}
		}
	}
}

func listOfNodes(t *testing.T, r resp) []nodeMetrics {
	t.Helper()
	var body struct{ Nodes []nodeMetrics }
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatal(err)
	}
	return body.Nodes
}

func TestDataInsightsPrometheusExposition(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	lk := bindLakehouse(t, s, "prom")
	vals := []string{`{"n":1}`, `{"n":2}`}
	produceValues(s, vals...)

	status, header, raw := e.send("", "GET", "/_emulator/metrics", nil) // no token: a scraper has none
	if status != 200 || !strings.HasPrefix(header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /_emulator/metrics: %d %s: %s", status, header.Get("Content-Type"), raw)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("parse exposition: %v\n%s", err, raw)
	}
	value := func(name, node string) (float64, bool) {
		for _, m := range fams[name].GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["node"] == node && labels["eventstream"] == s.id && labels["workspace"] == s.ws {
				if m.Counter != nil {
					return m.GetCounter().GetValue(), labels["node_type"] != ""
				}
				return m.GetGauge().GetValue(), labels["node_type"] != ""
			}
		}
		return 0, false
	}
	for _, c := range []struct {
		name, node string
		want       float64
	}{
		{"fabric_eventstream_input_events_total", lk.dest, 2},
		{"fabric_eventstream_output_events_total", lk.dest, 2},
		{"fabric_eventstream_output_event_bytes_total", lk.dest, float64(valueBytes(vals...))},
		{"fabric_eventstream_backlogged_input_events", lk.dest, 0},
		{"fabric_eventstream_incoming_messages_total", s.ds, 2},
		{"fabric_eventstream_outgoing_messages_total", s.ds, 2},
	} {
		if got, ok := value(c.name, c.node); !ok || got != c.want {
			t.Errorf("%s{node=%q} = %v (found %v), want %v", c.name, c.node, got, ok, c.want)
		}
	}
	if fams["fabric_eventstream_input_events_total"].GetType().String() != "COUNTER" ||
		fams["fabric_eventstream_backlogged_input_events"].GetType().String() != "GAUGE" {
		t.Errorf("types: %v, %v", fams["fabric_eventstream_input_events_total"].GetType(), fams["fabric_eventstream_backlogged_input_events"].GetType())
	}
}

// logEntry is a runtime log line of a logs answer.
type logEntry struct {
	Level, Message, NodeID string
}

func (s stream) logs(path, query string) []logEntry {
	s.e.t.Helper()
	r := s.e.must(200, s.e.call("GET", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+path+"/logs"+query, nil))
	var body struct{ Value []logEntry }
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		s.e.t.Fatal(err)
	}
	return body.Value
}

func TestDataInsightsRuntimeLogsNewestFirstByLevelAndKeyword(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	lk := bindLakehouse(t, s, "logs")
	produceValues(s, `{"alpha":1,"beta":1}`)
	produceValues(s, `{"alpha":"x"}`) // alpha's column holds integers
	produceValues(s, `{"beta":"y"}`)
	dest := "/destinations/" + lk.dest

	warnings := s.logs(dest, "?level=Warning")
	if len(warnings) != 2 || !strings.Contains(warnings[0].Message, "beta") || !strings.Contains(warnings[1].Message, "alpha") {
		t.Fatalf("warnings, newest first: %+v", warnings)
	}
	if got := s.logs(dest, "?level=Error"); len(got) != 0 {
		t.Errorf("errors: %+v", got)
	}
	if got := s.logs(dest, "?level=warning,error&keyword=BETA"); len(got) != 1 || got[0].Level != "Warning" {
		t.Errorf("keyword BETA: %+v", got)
	}
	if got := s.logs("", "?keyword=alpha"); len(got) != 1 || got[0].NodeID != lk.dest {
		t.Errorf("eventstream logs with keyword alpha: %+v", got)
	}
	wantMetrics(t, s.metricsOf("destinations", lk.dest), map[string]int64{"InputEvents": 3, "OutputEvents": 1, "DataConversionErrors": 2})
	e.wantError(e.call("GET", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+dest+"/logs?level=Verbose", nil), 400, "InvalidInput")
}

func TestDataInsightsKeptAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	e := startEnv(t, emulator.WithDataDir(dir))
	s := newStream(e)
	lk := bindLakehouse(t, s, "kept")
	produceValues(s, `{"q":1}`, `{"q":2}`)
	produceValues(s, `{"q":"three"}`)
	before := s.metricsOf("destinations", lk.dest)
	e.srv.Close()

	e2 := startEnv(t, emulator.WithDataDir(dir))
	s.e = e2
	after := s.metricsOf("destinations", lk.dest)
	for _, k := range []string{"InputEvents", "InputEventBytes", "OutputEvents", "OutputEventBytes", "DataConversionErrors"} {
		if before.Metrics[k] != after.Metrics[k] {
			t.Errorf("%s: %d before the restart, %d after", k, before.Metrics[k], after.Metrics[k])
		}
	}
	if got := s.logs("/destinations/"+lk.dest, "?level=Warning"); len(got) != 1 {
		t.Errorf("runtime logs after restart: %+v", got)
	}
	produceValues(s, `{"q":4}`)
	wantMetrics(t, s.metricsOf("destinations", lk.dest), map[string]int64{"InputEvents": 4, "OutputEvents": 3, "DataConversionErrors": 1})
	wantMetrics(t, s.metricsOf("streams", s.ds), map[string]int64{"IncomingMessages": 4, "OutgoingMessages": 4})
}

func TestDataInsightsUnknownIDs(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	base := "/v1/workspaces/" + s.ws + "/eventstreams/"
	for _, c := range []struct{ path, code string }{
		{base + s.id + "/destinations/00000000-0000-0000-0000-00000000000d/metrics", "DestinationNotFound"},
		{base + s.id + "/destinations/00000000-0000-0000-0000-00000000000d/logs", "DestinationNotFound"},
		{base + s.id + "/sources/nope/metrics", "EntityNotFound"},
		{base + s.id + "/streams/nope/logs", "EntityNotFound"},
		{base + "00000000-0000-0000-0000-0000000000e5/metrics", "ItemNotFound"},
		{base + "00000000-0000-0000-0000-0000000000e5/logs", "ItemNotFound"},
	} {
		e.wantError(e.call("GET", c.path, nil), http.StatusNotFound, c.code)
	}
	e.wantError(e.callAs("", "GET", base+s.id+"/metrics", nil), http.StatusUnauthorized, "InvalidToken")

	// Viewer reads, as the other eventstream read routes; no role, no read.
	const bob = "b0b00000-0000-0000-0000-0000000000b5"
	bobTok, err := e.srv.Token(bob)
	if err != nil {
		t.Fatal(err)
	}
	e.wantError(e.callAs(bobTok, "GET", base+s.id+"/metrics", nil), http.StatusForbidden, "InsufficientPrivileges")
	e.must(201, e.call("POST", "/v1/workspaces/"+s.ws+"/roleAssignments", map[string]any{"principal": map[string]any{"id": bob, "type": "User"}, "role": "Viewer"}))
	for _, p := range []string{"/metrics", "/logs", "/streams/" + s.ds + "/metrics"} {
		e.must(200, e.callAs(bobTok, "GET", base+s.id+p, nil))
	}
}

// The ingest seam counts data insights by one rule for every door: the
// same events sent over HTTP to one Eventstream and over Kafka, through
// its custom endpoint (zstd batches, so the gateway counts values
// decompressed), to a twin leave the same metrics on every node: the
// CustomEndpoint source, the stream, and both destinations. Bytes are
// value bytes, keys and headers left out. Watermark delay is the clock at
// delivery minus the newest timestamp: the twins deliver a moment apart,
// so it may differ by the second boundary between them.
func TestDataInsightsAreTheSameThroughBothDoors(t *testing.T) {
	viaHTTP, viaKafka := deployEndpoint(t), deployEndpoint(t)
	e := viaHTTP.e
	values := []string{`{"n":1,"s":"a"}`, `{"n":22,"s":"bb"}`, `{"n":333,"s":"ccc"}`}
	var evs []string
	var recs []*kgo.Record
	for i, v := range values {
		evs = append(evs, fmt.Sprintf(`{"key":"k%d","value":%s,"headers":{"h":"xyz"}}`, i, v))
		recs = append(recs, &kgo.Record{Key: fmt.Appendf(nil, "k%d", i), Value: []byte(v),
			Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("xyz")}}})
	}
	e.must(200, e.call("POST", viaHTTP.base+"/sources/"+viaHTTP.src+"/events", `{"events":[`+strings.Join(evs, ",")+`]}`))

	c := viaKafka.connection("GET", "/sources/"+viaKafka.src+"/connection", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := saslClient(t, c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString, kgo.DefaultProduceTopic(c.EventHubName),
		kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err := p.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce through the custom endpoint: %v", err)
	}
	waitRows(t, viaHTTP.table, len(values))
	waitRows(t, viaKafka.table, len(values))

	metrics := func(f endpointFixture) map[string]nodeMetrics {
		out := map[string]nodeMetrics{}
		for _, n := range listOfNodes(t, f.e.must(200, f.e.call("GET", f.base+"/metrics", nil))) {
			out[n.NodeType+" "+n.Name] = n
		}
		return out
	}
	var h, k map[string]nodeMetrics
	waitFor(t, 10*time.Second, "the lakehouse destinations to count their output", func() bool {
		h, k = metrics(viaHTTP), metrics(viaKafka)
		return h["Destination lake"].Metrics["OutputEvents"] == 3 && k["Destination lake"].Metrics["OutputEvents"] == 3
	})
	size := valueBytes(values...)
	wantMetrics(t, h["Source app"], map[string]int64{"InputEvents": 3, "InputEventBytes": size, "OutputEvents": 3})
	wantMetrics(t, h["Stream ce-stream"], map[string]int64{"IncomingMessages": 3, "IncomingBytes": size})
	if len(h) != 4 || len(k) != len(h) {
		t.Fatalf("nodes: HTTP %v, Kafka %v", h, k)
	}
	for name, hn := range h {
		kn := k[name]
		for m, v := range hn.Metrics {
			got, ok := kn.Metrics[m]
			diff := max(v-got, got-v)
			if !ok || diff > 0 && (m != "WatermarkDelaySeconds" || diff > 1) {
				t.Errorf("%s: %s is %d over HTTP, %d (present %v) over Kafka", name, m, v, got, ok)
			}
		}
		if len(kn.Metrics) != len(hn.Metrics) {
			t.Errorf("%s: metrics over HTTP %v, over Kafka %v", name, hn.Metrics, kn.Metrics)
		}
	}
}

// A DerivedStream's incoming messages are the records the operators before
// it wrote into its topic; the DefaultStream's are all those produced.
func TestDataInsightsOfADerivedStream(t *testing.T) {
	f := deployDerived(t)
	f.produceTemps(10, 25, 30, 21)
	get := func(id string) nodeMetrics {
		return decodeAs[nodeMetrics](t, f.e.must(200, f.e.call("GET", f.base+"/streams/"+id+"/metrics", nil)))
	}
	hot := get(f.hot)
	if hot.Type != "DerivedStream" || hot.Metrics["IncomingMessages"] != 3 {
		t.Errorf("derived stream %+v", hot)
	}
	wantMetrics(t, get(f.ds), map[string]int64{"IncomingMessages": 4})
}

// A SampleData source counts the events it generated and sent on; once
// paused and settled, its counts equal the stream's incoming messages.
func TestDataInsightsOfASampleDataSource(t *testing.T) {
	e := startEnv(t, emulator.WithSampleDataRate(5, 50*time.Millisecond), emulator.WithPartitions(1))
	ws := e.workspace("sample-insights")
	base, _ := deploy(t, e, ws, "bikes", map[string]any{"type": "SampleData", "properties": map[string]any{"type": "Bicycles"}}, "", "")
	src := sourceNode(t, e, base, "bikes-src")["id"].(string)
	get := func(kind, id string) nodeMetrics {
		return decodeAs[nodeMetrics](t, e.must(200, e.call("GET", base+"/"+kind+"/"+id+"/metrics", nil)))
	}
	waitFor(t, 10*time.Second, "sample events counted", func() bool { return get("sources", src).Metrics["OutputEvents"] >= 10 })
	e.must(200, e.call("POST", base+"/sources/"+src+"/pause", nil))
	var s, stream nodeMetrics
	waitFor(t, 5*time.Second, "counts to settle", func() bool {
		s = get("sources", src)
		for _, n := range listOfNodes(t, e.must(200, e.call("GET", base+"/metrics", nil))) {
			if n.NodeType == "Stream" {
				stream = n
			}
		}
		return s.Metrics["OutputEvents"] == stream.Metrics["IncomingMessages"]
	})
	if s.Type != "SampleData" || s.Metrics["InputEvents"] != s.Metrics["OutputEvents"] || s.Metrics["InputEventBytes"] != stream.Metrics["IncomingBytes"] || s.Metrics["OutputEvents"]%5 != 0 {
		t.Errorf("source %+v, stream %+v", s, stream)
	}
}
