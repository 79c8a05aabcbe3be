package emulator_test

// Events in the formats Fabric's Eventstream parses (fabric-docs,
// "Supported data formats",
// https://learn.microsoft.com/fabric/real-time-intelligence/event-streams/data-formats;
// inputSerialization: fabric-rest-api-specs eventstream/definitions/serialization.json),
// from real producers: Avro container files written by a Go Avro writer
// (hamba/avro's ocf package) and CSV text read from a file, through the
// custom endpoint's Kafka protocol and the HTTP source, read back from
// the Lakehouse (the Go Delta reader and delta-rs) and, byte for byte,
// from the consume route.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hamba/avro/v2/ocf"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/internal/testclients"
)

// formatFixture is an Eventstream whose CustomEndpoint source "app"
// declares an inputSerialization, read by a CustomEndpoint destination
// "out" and a Lakehouse "lake" (table "events", each batch committed).
type formatFixture struct {
	s          stream
	src, lake  string
	table      string
	bootstrap  string
	password   string
	kafkaTopic string
}

func deployFormat(t *testing.T, ser map[string]any) formatFixture {
	return deployFormatBatching(t, ser, false)
}

// deployFormatBatching is deployFormat; with batching the Lakehouse keeps
// Fabric's default batching (rows buffered in the journal until 120 s).
func deployFormatBatching(t *testing.T, ser map[string]any, batching bool) formatFixture {
	t.Helper()
	e := startEnv(t)
	ws := e.workspace("fmt")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"}))
	topo := endpointTopology(ws, lh.str("id"))
	topo["sources"].([]any)[0].(map[string]any)["properties"] = map[string]any{"inputSerialization": ser}
	if batching {
		delete(topo["destinations"].([]any)[1].(map[string]any)["properties"].(map[string]any), "minimumRows")
	}
	es := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "fmt", "definition": definitionOf(topo, nil)}))
	id := es.str("id")
	ds := es.Body["properties"].(map[string]any)["streams"].([]any)[0].(map[string]any)["id"].(string)
	base := "/v1/workspaces/" + ws + "/eventstreams/" + id
	tp := e.must(200, e.call("GET", base+"/topology", nil)).Body
	f := formatFixture{
		s:     stream{e: e, ws: ws, id: id, ds: ds, reads: "/v1/eventstreams/" + id + "/sources/" + ds + "/events"},
		src:   nodesByName(tp, "sources")["app"]["id"].(string),
		lake:  nodesByName(tp, "destinations")["lake"]["id"].(string),
		table: filepath.Join(lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string), "events"),
	}
	f.s.produce = base + "/sources/" + f.src + "/events"
	var c connectionJSON
	if err := json.Unmarshal(e.must(200, e.call("GET", base+"/sources/"+f.src+"/connection", nil)).Raw, &c); err != nil {
		t.Fatal(err)
	}
	f.bootstrap, f.password, f.kafkaTopic = c.FullyQualifiedNamespace, c.AccessKeys.PrimaryConnectionString, c.EventHubName
	return f
}

// produceKafka sends values through the custom endpoint's Kafka protocol.
func (f formatFixture) produceKafka(t *testing.T, values ...[]byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl := saslClient(t, f.bootstrap, f.password, kgo.DefaultProduceTopic(f.kafkaTopic))
	for _, v := range values {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: v}).FirstErr(); err != nil {
			t.Fatalf("produce through the custom endpoint: %v", err)
		}
	}
}

// produceHTTP sends values through the HTTP source, as bytes.
func (f formatFixture) produceHTTP(t *testing.T, values ...[]byte) {
	t.Helper()
	evs := make([]string, len(values))
	for i, v := range values {
		evs[i] = fmt.Sprintf(`{"valueBase64":%q}`, base64.StdEncoding.EncodeToString(v))
	}
	f.s.e.must(200, f.s.e.call("POST", f.s.produce, `{"events":[`+strings.Join(evs, ",")+`]}`))
}

// consumedValues are the values the consume route reads, sorted.
func (f formatFixture) consumedValues(n int) [][]byte {
	var out [][]byte
	for i := 0; i < 200 && len(out) < n; i++ {
		recs, _ := f.s.consume("?maxEvents=100&startingPosition=Earliest")
		out = out[:0]
		for _, r := range recs {
			out = append(out, r.Value)
		}
		if len(out) < n {
			sleep()
		}
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i], out[j]) < 0 })
	return out
}

const sensorSchema = `{"type":"record","name":"Sensor","fields":[
 {"name":"id","type":"long"},{"name":"temp","type":"double"},{"name":"city","type":["null","string"]},
 {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}}]}`

// sensorFile is an Avro container file of sensors ids, written by the Go writer.
func sensorFile(t *testing.T, ids ...int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := ocf.NewEncoder(sensorSchema, &buf, ocf.WithCodec(ocf.Deflate))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if err := enc.Encode(map[string]any{"id": id, "temp": float64(id) + 0.5, "city": map[string]any{"string": "c" + fmt.Sprint(id)},
			"at": time.UnixMilli(1_700_000_000_000 + id).UTC()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// wantSensorRows waits for n rows in the fixture's table, checks the
// Sensor schema's column types, and compares the rows' id/temp/city,
// sorted, with want.
func (f formatFixture) wantSensorRows(t *testing.T, n int, want string) {
	t.Helper()
	waitRows(t, f.table, n)
	snap := readTable(t, f.table)
	if types := columnTypes(snap); types["id"] != "long" || types["temp"] != "double" || types["city"] != "string" || types["at"] != "timestamp" {
		t.Fatalf("column types %v; want id long, temp double, city string, at timestamp", types)
	}
	var got []string
	for _, r := range snap.Rows {
		got = append(got, fmt.Sprintf("%v/%v/%v", r["id"], r["temp"], r["city"]))
	}
	sort.Strings(got)
	if strings.Join(got, " ") != want {
		t.Fatalf("rows %v, want %s", got, want)
	}
}

// TestAvroEventsReachLakehouseWithTheirTypes: each record of a container
// file is a row with Avro's types (long → bigint, double, string,
// timestamp-millis → timestamp); an event that is not Avro is dropped,
// counted in DeserializationErrors and logged with partition and offset;
// a custom endpoint reads every event's bytes unchanged.
func TestAvroEventsReachLakehouseWithTheirTypes(t *testing.T) {
	f := deployFormat(t, map[string]any{"type": "Avro", "properties": map[string]any{}})
	kafkaFile, httpFile, notAvro := sensorFile(t, 1, 2), sensorFile(t, 3), []byte(`{"id":4}`)
	f.produceKafka(t, kafkaFile)
	f.produceHTTP(t, httpFile, notAvro)
	f.wantSensorRows(t, 3, "1/1.5/c1 2/2.5/c2 3/3.5/c3")

	want := [][]byte{notAvro, kafkaFile, httpFile}
	sort.Slice(want, func(i, j int) bool { return bytes.Compare(want[i], want[j]) < 0 })
	if got := f.consumedValues(3); len(got) != 3 || !bytes.Equal(got[0], want[0]) || !bytes.Equal(got[1], want[1]) || !bytes.Equal(got[2], want[2]) {
		t.Fatalf("consume route read %d values, not the 3 produced byte for byte", len(got))
	}

	wantMetrics(t, f.s.metricsOf("destinations", f.lake), map[string]int64{"InputEvents": 3, "OutputEvents": 3, "DeserializationErrors": 1})
	logs := f.s.logs("/destinations/"+f.lake, "?keyword=deserialization")
	if len(logs) != 1 || logs[0].Level != "Warning" || !strings.Contains(logs[0].Message, "not valid Avro") {
		t.Fatalf("runtime logs %+v; want one Warning on the event that is not Avro", logs)
	}
	raw := f.s.e.must(200, f.s.e.call("GET", f.s.logsPath("/destinations/"+f.lake)+"?keyword=deserialization", nil)).Raw
	if !bytes.Contains(raw, []byte(`"partition"`)) || !bytes.Contains(raw, []byte(`"offset"`)) {
		t.Fatalf("the log does not name the event's partition and offset: %s", raw)
	}
}

// TestCSVEventsFromAFileReachLakehouse: a CSV file, one event per chunk
// of lines with its header, gives one text-valued row per line; a ragged
// event is dropped and counted.
func TestCSVEventsFromAFileReachLakehouse(t *testing.T) {
	f := deployFormat(t, map[string]any{"type": "Csv", "properties": map[string]any{"fieldDelimiter": ";", "format": "WithHeaders", "encoding": "UTF8"}})
	path := filepath.Join(t.TempDir(), "readings.csv")
	text := "station;temp;note\nOSL;-3.5;\"cold; windy\"\nRIO;31;hot\nNYC;12;mild\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(file), "\n"), "\n")
	header := lines[0]
	f.produceKafka(t, []byte(header+lines[1]+lines[2]))
	f.produceHTTP(t, []byte(header+lines[3]), []byte("station;temp\nX;1;2\n"))
	waitRows(t, f.table, 3)
	snap := readTable(t, f.table)
	var got []string
	for _, r := range snap.Rows {
		got = append(got, fmt.Sprintf("%v|%v|%v", r["station"], r["temp"], r["note"]))
	}
	sort.Strings(got)
	if strings.Join(got, " ") != "NYC|12|mild OSL|-3.5|cold; windy RIO|31|hot" {
		t.Fatalf("rows %v", got)
	}
	if types := columnTypes(snap); types["temp"] != "string" {
		t.Fatalf("column types %v; CSV values are text", types)
	}
	wantMetrics(t, f.s.metricsOf("destinations", f.lake), map[string]int64{"InputEvents": 3, "OutputEvents": 3, "DeserializationErrors": 1})
}

// logsPath is the logs route of node path (e.g. /destinations/{id}).
func (s stream) logsPath(path string) string {
	return "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + path + "/logs"
}

// TestUnparsedFormatToLakehouseRefusedAtDeploy: a source that sends PSV
// cannot feed a Lakehouse; the deploy is refused with
// EventstreamDataFormatNotSupported, its detail naming the node's field.
func TestUnparsedFormatToLakehouseRefusedAtDeploy(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("fmt")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"}))
	topo := endpointTopology(ws, lh.str("id"))
	topo["sources"].([]any)[0].(map[string]any)["properties"] = map[string]any{"inputSerialization": map[string]any{"type": "Psv"}}
	r := e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "psv", "definition": definitionOf(topo, nil)})
	e.wantError(r, 400, "EventstreamDataFormatNotSupported")
	if !strings.Contains(string(r.Raw), `destination \"lake\" (Lakehouse) cannot take Psv events`) || !strings.Contains(string(r.Raw), "eventstream.json destinations[1]") {
		t.Fatalf("refusal does not name the node and the rule: %s", r.Raw)
	}
}

// fastavroScript writes, with Python's fastavro, an Avro container file of
// the records its stdin holds (JSON lines) in the schema of argv[1], and
// prints it base64-encoded; with argv[2] == "datum", each record's
// schemaless (binary) encoding instead, one base64 line each.
const fastavroScript = `
import base64, io, json, sys
import fastavro
schema = fastavro.parse_schema(json.loads(sys.argv[1]))
records = [json.loads(line) for line in sys.stdin if line.strip()]
if len(sys.argv) > 2 and sys.argv[2] == "datum":
    for r in records:
        buf = io.BytesIO()
        fastavro.schemaless_writer(buf, schema, r)
        print(base64.b64encode(buf.getvalue()).decode())
else:
    buf = io.BytesIO()
    fastavro.writer(buf, schema, records, codec="deflate")
    print(base64.b64encode(buf.getvalue()).decode())
`

// fastavroWrite runs fastavroScript (mode "" or "datum") and returns what
// it wrote.
func fastavroWrite(t *testing.T, schema, mode string, records ...string) [][]byte {
	t.Helper()
	py, err := testclients.DeltaPython()
	if err != nil {
		t.Fatalf("python: %v: %s", err, testclients.DeltaInstallHint)
	}
	args := []string{"-c", fastavroScript, schema}
	if mode != "" {
		args = append(args, mode)
	}
	out := testclients.Run(t, []byte(strings.Join(records, "\n")), py, args...)
	var files [][]byte
	for _, line := range strings.Fields(string(out)) {
		b, err := base64.StdEncoding.DecodeString(line)
		if err != nil {
			t.Fatalf("fastavro output %q: %v", line, err)
		}
		files = append(files, b)
	}
	return files
}

// TestAvroFromFastavroReachesLakehouse: a container file written by
// Python's fastavro, through the custom endpoint's Kafka protocol and the
// HTTP source, gives one typed row per record.
func TestAvroFromFastavroReachesLakehouse(t *testing.T) {
	f := deployFormat(t, map[string]any{"type": "Avro", "properties": map[string]any{}})
	a := fastavroWrite(t, sensorSchema, "", `{"id":10,"temp":1.25,"city":"x","at":1700000000000}`, `{"id":11,"temp":2.5,"city":null,"at":1700000000001}`)
	b := fastavroWrite(t, sensorSchema, "", `{"id":12,"temp":-4.0,"city":"z","at":1700000000002}`)
	f.produceKafka(t, a...)
	f.produceHTTP(t, b...)
	f.wantSensorRows(t, 3, "10/1.25/x 11/2.5/<nil> 12/-4/z")
	if got := f.consumedValues(2); len(got) != 2 || !(bytes.Equal(got[0], a[0]) && bytes.Equal(got[1], b[0]) || bytes.Equal(got[0], b[0]) && bytes.Equal(got[1], a[0])) {
		t.Fatalf("consume route read %d values, not fastavro's files byte for byte", len(got))
	}
}

// ocfEncoder is the Go writer's container encoder of schema into w.
func ocfEncoder(schema string, w io.Writer) (*ocf.Encoder, error) {
	return ocf.NewEncoder(schema, w)
}

// TestAvroRowsKeepTheirTypesThroughBatching: rows buffered by a batching
// Lakehouse (journalled until the batch is due) keep Avro's types.
func TestAvroRowsKeepTheirTypesThroughBatching(t *testing.T) {
	f := deployFormatBatching(t, map[string]any{"type": "Avro"}, true)
	f.produceHTTP(t, sensorFile(t, 5, 6))
	f.s.e.advance(120)
	snap := readTable(t, f.table)
	if types := columnTypes(snap); len(snap.Rows) != 2 || types["id"] != "long" || types["at"] != "timestamp" || types["temp"] != "double" {
		t.Fatalf("%d rows, column types %v; want 2 rows, id long, at timestamp, temp double", len(snap.Rows), types)
	}
}

// TestKafkaSourceWithCSVSerialization: an ApacheKafka source declaring
// Csv copies its topic's events, and the Lakehouse reads them as CSV
// rows; an event with an unclosed quote is dropped.
func TestKafkaSourceWithCSVSerialization(t *testing.T) {
	e := startEnv(t, emulator.WithPartitions(1))
	ws := e.workspace("kcsv")
	other, prod := secondCluster(t)
	conn := "0a0b0c0d-0000-1111-2222-3333444455aa"
	e.must(201, e.call("PUT", "/v1/_emulator/connections/"+conn, map[string]any{"workspaceId": ws, "bootstrapServers": strings.Join(other.ListenAddrs(), ","), "securityProtocol": "PLAINTEXT"}))
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"}))
	table := filepath.Join(lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string), "orders")
	src := map[string]any{"type": "ApacheKafka", "properties": map[string]any{"dataConnectionId": conn, "topic": "orders", "consumerGroupName": "g", "autoOffsetReset": "Earliest",
		"inputSerialization": map[string]any{"type": "Csv", "properties": map[string]any{"fieldDelimiter": "|", "format": "WithoutHeaders"}}}}
	deploy(t, e, ws, "kcsv", src, lh.str("id"), "orders")
	for _, v := range []string{"o-1|3\no-2|4\n", "o-3|5\n", "o-4|\"6\n"} {
		if err := prod.ProduceSync(context.Background(), &kgo.Record{Value: []byte(v), Partition: 0}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	waitRows(t, table, 3)
	var got []string
	for _, r := range readTable(t, table).Rows {
		got = append(got, fmt.Sprintf("%v=%v", r["column1"], r["column2"]))
	}
	sort.Strings(got)
	if strings.Join(got, ",") != "o-1=3,o-2=4,o-3=5" {
		t.Fatalf("rows %v", got)
	}
}

// TestAvroThroughOperators: Avro rows go through a Filter (on the long
// id) and a derived column to a Lakehouse; an event that is not Avro is
// dropped and counted before the operators.
func TestAvroThroughOperators(t *testing.T) {
	e := startEnv(t)
	ws := e.workspace("fmtops")
	lh := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/lakehouses", map[string]any{"displayName": "lh"}))
	in := func(name string) []any { return []any{map[string]any{"name": name}} }
	topo := map[string]any{
		"sources": []any{map[string]any{"name": "app", "type": "CustomEndpoint", "properties": map[string]any{"inputSerialization": map[string]any{"type": "Avro"}}}},
		"streams": []any{map[string]any{"name": "main", "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": in("app")}},
		"operators": []any{map[string]any{"name": "big", "type": "Filter", "inputNodes": in("main"), "properties": map[string]any{"conditions": []any{
			map[string]any{"column": map[string]any{"columnName": "id"}, "operatorType": "GreaterThan", "value": map[string]any{"dataType": "BigInt", "value": "1"}},
		}}}},
		"destinations": []any{map[string]any{"name": "lake", "type": "Lakehouse", "inputNodes": in("big"),
			"properties": map[string]any{"workspaceId": ws, "itemId": lh.str("id"), "deltaTable": "big", "minimumRows": 1}}},
	}
	es := e.must(201, e.call("POST", "/v1/workspaces/"+ws+"/eventstreams", map[string]any{"displayName": "ops", "definition": definitionOf(topo, nil)}))
	base := "/v1/workspaces/" + ws + "/eventstreams/" + es.str("id")
	tp := e.must(200, e.call("GET", base+"/topology", nil)).Body
	src := nodesByName(tp, "sources")["app"]["id"].(string)
	lake := nodesByName(tp, "destinations")["lake"]["id"].(string)
	evs := []string{}
	for _, v := range [][]byte{sensorFile(t, 1, 2, 3), []byte("plain")} {
		evs = append(evs, fmt.Sprintf(`{"valueBase64":%q}`, base64.StdEncoding.EncodeToString(v)))
	}
	e.must(200, e.call("POST", base+"/sources/"+src+"/events", `{"events":[`+strings.Join(evs, ",")+`]}`))
	table := filepath.Join(lh.Body["properties"].(map[string]any)["x-fabrictest-localTablesPath"].(string), "big")
	waitRows(t, table, 2)
	snap := readTable(t, table)
	var ids []string
	for _, r := range snap.Rows {
		ids = append(ids, fmt.Sprint(r["id"]))
	}
	sort.Strings(ids)
	if strings.Join(ids, ",") != "2,3" || columnTypes(snap)["id"] != "long" {
		t.Fatalf("ids %v, types %v; want the Filter's 2 and 3 as long", ids, columnTypes(snap))
	}
	m := decodeAs[nodeMetrics](t, e.must(200, e.call("GET", base+"/destinations/"+lake+"/metrics", nil)))
	wantMetrics(t, m, map[string]int64{"InputEvents": 2, "DeserializationErrors": 1})
}
