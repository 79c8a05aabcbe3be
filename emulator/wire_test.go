package emulator_test

// Wire compatibility with Kafka clients nobody here wrote: kcat (librdkafka)
// reads what the HTTP produce route wrote, and kafka-python writes what the
// HTTP consume route reads back, byte for byte, against the embedded broker.
//
// These tests need the Debian packages kcat and python3-kafka; they fail (never
// skip) when those are missing. Install them with scripts/install-test-deps.sh.

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fabrictest/fabrictest/fabrictest"
	"github.com/fabrictest/fabrictest/internal/testclients"
)

// wireEventCount is how many events one HTTP produce call sends.
const wireEventCount = 1000

// wireRecord is what a record must hold. Nil Key/Value are Kafka nulls, and
// differ from empty ones.
type wireRecord struct {
	Key, Value []byte
	Headers    []fabrictest.Header
	// TsMs is the record timestamp in epoch milliseconds, or -1 when the
	// producer left it to "now" (then it must fall within the produce call).
	TsMs int64
}

// sameBytes compares bytes and nullness: nil (null) is not []byte{} (empty).
func sameBytes(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

func sameHeaders(a, b []fabrictest.Header) bool {
	return slices.EqualFunc(a, b, func(x, y fabrictest.Header) bool { return x.Key == y.Key && sameBytes(x.Value, y.Value) })
}

// showBytes renders bytes for a failure message, keeping null visible.
func showBytes(b []byte) string {
	if b == nil {
		return "null"
	}
	if utf8.Valid(b) {
		return strconv.Quote(string(b))
	}
	return fmt.Sprintf("0x%x", b)
}

func showHeaders(hs []fabrictest.Header) string {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, h := range hs {
		if i > 0 {
			buf.WriteString(", ")
		}
		fmt.Fprintf(&buf, "%q=%s", h.Key, showBytes(h.Value))
	}
	buf.WriteByte(']')
	return buf.String()
}

// wireSource creates an Eventstream and resolves it as a notebook would.
type wireSource struct {
	e                *testEnv
	ws, id, ds       string
	bootstrap, topic string
}

func wireNewSource(e *testEnv) wireSource {
	e.t.Helper()
	ws := e.workspace("wire")
	id, ds := e.eventstream(ws, "wire-es")
	r := e.must(200, e.call("GET", "/v1/eventstreams/"+id+"/sources/"+ds, nil))
	s := wireSource{e: e, ws: ws, id: id, ds: ds, bootstrap: r.str("bootstrapServers"), topic: r.str("topic")}
	if s.bootstrap == "" || s.topic == "" {
		e.t.Fatalf("resolve answered no bootstrapServers/topic: %s", r.Raw)
	}
	return s
}

// produce posts a raw produce body and returns where each event landed.
func (s wireSource) produce(body []byte) []fabrictest.Position {
	s.e.t.Helper()
	r := s.e.must(200, s.e.call("POST", "/v1/workspaces/"+s.ws+"/eventstreams/"+s.id+"/sources/"+s.ds+"/events", body))
	var ans fabrictest.ProduceResult
	if err := json.Unmarshal(r.Raw, &ans); err != nil {
		s.e.t.Fatalf("produce answer: %v: %s", err, r.Raw)
	}
	if ans.Topic != s.topic || ans.Produced != len(ans.Events) {
		s.e.t.Fatalf("produce answer: topic %q (want %q), produced %d, %d positions", ans.Topic, s.topic, ans.Produced, len(ans.Events))
	}
	return ans.Events
}

// wireGot is one record as a client read it.
type wireGot struct {
	Pos fabrictest.Position
	wireRecord
}

// consume reads the whole topic through the HTTP consume route.
func (s wireSource) consume(wantCount int) []wireGot {
	s.e.t.Helper()
	q := url.Values{"maxRecords": {strconv.Itoa(wantCount + 1)}, "timeoutMs": {"15000"}}
	r := s.e.must(200, s.e.call("GET", "/v1/eventstreams/"+s.id+"/sources/"+s.ds+"/events?"+q.Encode(), nil))
	var ans fabrictest.ConsumeAnswer
	if err := json.Unmarshal(r.Raw, &ans); err != nil {
		s.e.t.Fatalf("consume answer: %v", err)
	}
	if ans.Count != len(ans.Value) || !ans.Complete {
		s.e.t.Fatalf("consume answer: count %d, %d records, complete %v", ans.Count, len(ans.Value), ans.Complete)
	}
	out := make([]wireGot, len(ans.Value))
	last := fabrictest.Position{Partition: -1, Offset: -1}
	for i, v := range ans.Value {
		if v.Topic != s.topic || v.TimestampType != 0 {
			s.e.t.Fatalf("record %d: topic %q timestampType %d, want %q and 0 (CreateTime)", i, v.Topic, v.TimestampType, s.topic)
		}
		p := fabrictest.Position{Partition: v.Partition, Offset: v.Offset}
		if p.Partition < last.Partition || (p.Partition == last.Partition && p.Offset <= last.Offset) {
			s.e.t.Fatalf("record %d at %v follows %v: records must come ordered by partition, then offset", i, p, last)
		}
		last = p
		out[i] = wireGot{Pos: p, wireRecord: wireRecord{Key: v.Key, Value: v.Value, Headers: v.Headers, TsMs: v.Timestamp.UnixMilli()}}
	}
	next := ans.NextOffsets[s.topic]
	for _, g := range out {
		if n := next[strconv.Itoa(int(g.Pos.Partition))]; n <= g.Pos.Offset {
			s.e.t.Fatalf("nextOffsets[%d] = %d, but offset %d was read", g.Pos.Partition, n, g.Pos.Offset)
		}
	}
	return out
}

// wireCompare checks that got holds exactly the records of want, placed at
// pos, each once, with identical bytes, headers and timestamps ("now"
// timestamps must fall in [nowFrom, nowTo]).
func wireCompare(t *testing.T, client string, got []wireGot, want []wireRecord, pos []fabrictest.Position, nowFrom, nowTo int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s read %d records, want exactly %d", client, len(got), len(want))
	}
	at := make(map[fabrictest.Position]int, len(pos))
	for i, p := range pos {
		if j, dup := at[p]; dup {
			t.Fatalf("events %d and %d were both reported at partition %d offset %d", j, i, p.Partition, p.Offset)
		}
		at[p] = i
	}
	seen := make(map[fabrictest.Position]bool, len(got))
	bad := 0
	fail := func(format string, args ...any) {
		t.Helper()
		if bad++; bad <= 10 {
			t.Errorf(format, args...)
		}
	}
	for _, g := range got {
		if seen[g.Pos] {
			fail("%s read partition %d offset %d twice", client, g.Pos.Partition, g.Pos.Offset)
			continue
		}
		seen[g.Pos] = true
		i, ok := at[g.Pos]
		if !ok {
			fail("%s read a record at partition %d offset %d where nothing was produced", client, g.Pos.Partition, g.Pos.Offset)
			continue
		}
		w := want[i]
		if !sameBytes(g.Key, w.Key) {
			fail("%s event %d (p%d o%d): key %s, want %s", client, i, g.Pos.Partition, g.Pos.Offset, showBytes(g.Key), showBytes(w.Key))
		}
		if !sameBytes(g.Value, w.Value) {
			fail("%s event %d (p%d o%d): value %s, want %s", client, i, g.Pos.Partition, g.Pos.Offset, showBytes(g.Value), showBytes(w.Value))
		}
		if !sameHeaders(g.Headers, w.Headers) {
			fail("%s event %d (p%d o%d): headers %s, want %s", client, i, g.Pos.Partition, g.Pos.Offset, showHeaders(g.Headers), showHeaders(w.Headers))
		}
		if w.TsMs >= 0 && g.TsMs != w.TsMs {
			fail("%s event %d: timestamp %d ms, want %d", client, i, g.TsMs, w.TsMs)
		} else if w.TsMs < 0 && (g.TsMs < nowFrom || g.TsMs > nowTo) {
			fail("%s event %d: timestamp %d ms outside the produce call [%d, %d]", client, i, g.TsMs, nowFrom, nowTo)
		}
	}
	if bad > 10 {
		t.Errorf("… and %d more mismatches", bad-10)
	}
	for i, p := range pos {
		if !seen[p] {
			if bad++; bad <= 20 {
				t.Errorf("%s did not read event %d (partition %d offset %d)", client, i, p.Partition, p.Offset)
			}
		}
	}
}

// wireSpread fails unless records landed in more than one partition and,
// within each partition, in the order they were sent.
func wireSpread(t *testing.T, pos []fabrictest.Position) map[int32]int {
	t.Helper()
	per := map[int32]int{}
	last := map[int32]int64{}
	for i, p := range pos {
		if p.Partition < 0 || p.Offset < 0 {
			t.Fatalf("event %d has no position: %+v", i, p)
		}
		if l, ok := last[p.Partition]; ok && p.Offset <= l {
			t.Fatalf("event %d at partition %d offset %d follows offset %d of an earlier event", i, p.Partition, p.Offset, l)
		}
		last[p.Partition] = p.Offset
		per[p.Partition]++
	}
	if len(per) < 2 {
		t.Fatalf("all %d events landed in one partition (%v); the test wants several", len(pos), per)
	}
	return per
}

// wireTsNote: the HTTP produce route answers 502 KafkaUnavailable ("records
// have timed out before they were able to be produced") for an event whose
// explicit timestamp is more than 15 s in the past when it heads a batch:
// broker.connect sets kgo.RecordDeliveryTimeout(15s) and franz-go measures
// that timeout from Record.Timestamp. The events here keep clear of it.

// wireHTTPEvents builds a produce body of n events mixing every value shape
// the route accepts, and the bytes Kafka must then hold for each.
func wireHTTPEvents(t *testing.T, n int) ([]byte, []wireRecord) {
	t.Helper()
	compact := func(raw string) []byte {
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(raw)); err != nil {
			t.Fatalf("compact %s: %v", raw, err)
		}
		return b.Bytes()
	}
	quote := func(s string) string {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	now, plusOne := time.Now(), time.FixedZone("+01:00", 3600)
	var body bytes.Buffer
	body.WriteString(`{"events": [`)
	want := make([]wireRecord, n)
	for i := range n {
		var fields []string
		w := wireRecord{TsMs: -1}

		switch i % 6 {
		case 0: // a JSON object, with insignificant space, escapes and non-ASCII
			raw := fmt.Sprintf(`{ "id" : %d, "name": "sensor ünïcødé 日本 🚀", "tags": [ "a", "b" ],
				"nested": { "ok": true, "v": null, "f": 1.50e2 }, "esc": "tab\t quote\" \u00e9 \u2028 \/" }`, i)
			fields = append(fields, `"value": `+raw)
			w.Value = compact(raw)
		case 1: // a plain string, sent with Go's escapes, holding NUL, newlines and 4-byte UTF-8
			s := fmt.Sprintf("événement %d — 東京 🚀 \"q\" \\ nl\n nul\x00 tab\t ß <&>", i)
			fields = append(fields, `"value": `+quote(s))
			w.Value = []byte(s)
		case 2: // a string spelled with \u escapes, surrogate pair included
			fields = append(fields, fmt.Sprintf(`"value": "caf\u00e9 \ud83d\ude80 %d"`, i))
			w.Value = []byte(fmt.Sprintf("café 🚀 %d", i))
		case 3: // arrays, numbers, booleans: compact serialisation, number text kept
			raw := []string{`[ 1, 2.50, "x", null ]`, `12.50`, `true`, `-0.0e+0`, `false`, `[ ]`}[(i/6)%6]
			fields = append(fields, `"value": `+raw)
			w.Value = compact(raw)
		case 4: // null: a Kafka null value
			fields = append(fields, `"value": null`)
		case 5: // the empty string: an empty, non-null value
			fields = append(fields, `"value": ""`)
			w.Value = []byte{}
		}

		switch i % 5 {
		case 0: // no key
		case 1:
			fields = append(fields, `"key": null`)
		case 2:
			k := fmt.Sprintf("key-%d-ключ", i%37)
			fields = append(fields, `"key": `+quote(k))
			w.Key = []byte(k)
		case 3:
			raw := fmt.Sprintf(`{ "id" : %d }`, i%41)
			fields = append(fields, `"key": `+raw)
			w.Key = compact(raw)
		case 4:
			fields = append(fields, `"key": ""`)
			w.Key = []byte{}
		}

		switch i % 8 {
		case 1, 5: // object form: order kept
			fields = append(fields, fmt.Sprintf(`"headers": {"trace-id": "t-%d", "ü-key": "välue ✓", "empty": ""}`, i))
			w.Headers = []fabrictest.Header{{Key: "trace-id", Value: []byte(fmt.Sprintf("t-%d", i))}, {Key: "ü-key", Value: []byte("välue ✓")}, {Key: "empty", Value: []byte{}}}
		case 2, 6: // list form: repeats, null and empty values, an empty key, separators
			fields = append(fields, `"headers": [{"key": "dup", "value": "1"}, {"key": "dup", "value": "2"}, {"key": "nil", "value": null},`+
				` {"key": "", "value": "empty key"}, {"key": "a,b=c", "value": "x=y,z\n"}]`)
			w.Headers = []fabrictest.Header{{Key: "dup", Value: []byte("1")}, {Key: "dup", Value: []byte("2")}, {Key: "nil", Value: nil}, {Key: "", Value: []byte("empty key")}, {Key: "a,b=c", Value: []byte("x=y,z\n")}}
		case 3:
			fields = append(fields, `"headers": null`)
		case 7:
			fields = append(fields, `"headers": []`)
		}

		// Explicit timestamps are recent or in the future on purpose: one more
		// than 15 s in the past is refused today (see wireTsNote).
		switch i % 7 {
		case 0:
			ms := now.Add(-5*time.Second).UnixMilli() + int64(i)
			fields = append(fields, fmt.Sprintf(`"timestamp": %d`, ms))
			w.TsMs = ms
		case 1:
			ts := now.Add(time.Hour).Truncate(time.Second).Add(789_123_456*time.Nanosecond + time.Duration(i)*time.Microsecond).In(plusOne)
			fields = append(fields, `"timestamp": `+quote(ts.Format(time.RFC3339Nano)))
			w.TsMs = ts.UnixMilli() // Kafka keeps milliseconds
		}

		if i%2 == 1 { // field order must not matter
			slices.Reverse(fields)
		}
		if i > 0 {
			body.WriteString(",\n")
		}
		body.WriteString("{")
		for j, f := range fields {
			if j > 0 {
				body.WriteString(", ")
			}
			body.WriteString(f)
		}
		body.WriteString("}")
		want[i] = w
	}
	body.WriteString("]}")
	return body.Bytes(), want
}

// wireProduceHTTP produces the mixed events in ONE HTTP call.
func wireProduceHTTP(t *testing.T, s wireSource) (want []wireRecord, pos []fabrictest.Position, from, to int64) {
	t.Helper()
	body, want := wireHTTPEvents(t, wireEventCount)
	from = time.Now().UnixMilli()
	pos = s.produce(body)
	to = time.Now().UnixMilli()
	if len(pos) != wireEventCount {
		t.Fatalf("produce placed %d events, want %d", len(pos), wireEventCount)
	}
	per := wireSpread(t, pos)
	t.Logf("produced %d events (%d bytes) in one call; per partition: %v", len(pos), len(body), per)
	return want, pos, from, to
}

// kcatJSON is one line of kcat -J.
type kcatJSON struct {
	Topic     string    `json:"topic"`
	Partition int32     `json:"partition"`
	Offset    int64     `json:"offset"`
	TsType    string    `json:"tstype"`
	Ts        int64     `json:"ts"`
	Key       *string   `json:"key"`
	Payload   *string   `json:"payload"`
	Headers   []*string `json:"headers"` // name, value, name, value…; a null value is null
}

// kcatRawFormat prints, per record, a line with partition, offset, key and
// value lengths (-1 for null) and timestamp, then the key and value bytes
// and a newline: the lengths make it unambiguous for any bytes.
const kcatRawFormat = `R %p %o %K %S %T\n%k%s\n`

func parseKcatRaw(t *testing.T, out []byte) []wireGot {
	t.Helper()
	var got []wireGot
	take := func(n int) []byte {
		if n < 0 {
			return nil
		}
		if n > len(out) {
			t.Fatalf("kcat output truncated: want %d bytes, %d left", n, len(out))
		}
		b := bytes.Clone(out[:n])
		out = out[n:]
		return b
	}
	for len(out) > 0 {
		nl := bytes.IndexByte(out, '\n')
		if nl < 0 {
			t.Fatalf("kcat output: unterminated record line %q", out)
		}
		line := string(out[:nl])
		out = out[nl+1:]
		var g wireGot
		var kl, vl int
		if _, err := fmt.Sscanf(line, "R %d %d %d %d %d", &g.Pos.Partition, &g.Pos.Offset, &kl, &vl, &g.TsMs); err != nil {
			t.Fatalf("kcat output: record line %q: %v", line, err)
		}
		g.Key, g.Value = take(kl), take(vl)
		if len(out) == 0 || out[0] != '\n' {
			t.Fatalf("kcat output: record at p%d o%d not followed by a newline", g.Pos.Partition, g.Pos.Offset)
		}
		out = out[1:]
		got = append(got, g)
	}
	return got
}

// TestWireKcatReadsHTTPProduce: 1,000 events produced in one HTTP call are
// read by kcat (librdkafka) from the resolved bootstrap servers and topic,
// all partitions, with identical key and value bytes, headers and timestamps.
func TestWireKcatReadsHTTPProduce(t *testing.T) {
	kcat := testclients.Kcat(t)
	e := startEnv(t)
	s := wireNewSource(e)
	want, pos, from, to := wireProduceHTTP(t, s)
	base := []string{"-C", "-b", s.bootstrap, "-t", s.topic, "-o", "beginning", "-e", "-q"}

	// Raw bytes with lengths: exact for any byte, null distinct from empty.
	raw := parseKcatRaw(t, testclients.Run(t, nil, kcat, append(base, "-f", kcatRawFormat)...))
	// Headers only appear unambiguously (null values, separators) in -J.
	var js []wireGot
	sc := bufio.NewScanner(bytes.NewReader(testclients.Run(t, nil, kcat, append(base, "-J")...)))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m kcatJSON
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("kcat -J line %q: %v", sc.Bytes(), err)
		}
		if m.Topic != s.topic || m.TsType != "create" {
			t.Fatalf("kcat -J: topic %q tstype %q, want %q and create", m.Topic, m.TsType, s.topic)
		}
		g := wireGot{Pos: fabrictest.Position{Partition: m.Partition, Offset: m.Offset}}
		g.TsMs = m.Ts
		if m.Key != nil {
			g.Key = []byte(*m.Key)
		}
		if m.Payload != nil {
			g.Value = []byte(*m.Payload)
		}
		if len(m.Headers)%2 != 0 {
			t.Fatalf("kcat -J: odd header list %v", m.Headers)
		}
		for i := 0; i < len(m.Headers); i += 2 {
			if m.Headers[i] == nil {
				t.Fatalf("kcat -J: null header name at p%d o%d", m.Partition, m.Offset)
			}
			h := fabrictest.Header{Key: *m.Headers[i]}
			if v := m.Headers[i+1]; v != nil {
				h.Value = []byte(*v)
			}
			g.Headers = append(g.Headers, h)
		}
		js = append(js, g)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	// The raw pass carries no headers; take them from the JSON pass, which
	// is compared in full on its own.
	hdrs := map[fabrictest.Position][]fabrictest.Header{}
	for _, g := range js {
		hdrs[g.Pos] = g.Headers
	}
	for i := range raw {
		raw[i].Headers = hdrs[raw[i].Pos]
	}
	wireCompare(t, "kcat -f", raw, want, pos, from, to)
	wireCompare(t, "kcat -J", js, want, pos, from, to)
}

// TestWireConsumeRouteReturnsHTTPProduce: the consume route answers exactly
// the 1,000 events produced in one call, with identical bytes.
func TestWireConsumeRouteReturnsHTTPProduce(t *testing.T) {
	e := startEnv(t)
	s := wireNewSource(e)
	want, pos, from, to := wireProduceHTTP(t, s)
	wireCompare(t, "consume route", s.consume(wireEventCount), want, pos, from, to)
}

// wirePythonProducer produces records described on stdin with kafka-python
// (two producers: uncompressed and gzip) and prints, in order, where each
// landed and the timestamp the producer gave it.
const wirePythonProducer = `
import base64, json, sys
from kafka import KafkaProducer

spec = json.load(sys.stdin)
def raw(s):
    return None if s is None else base64.b64decode(s)
producers = {}
def producer(compression):
    if compression not in producers:
        producers[compression] = KafkaProducer(
            bootstrap_servers=spec["bootstrap"], acks="all", client_id="wire-test-" + (compression or "plain"),
            compression_type=compression or None, linger_ms=5,
            max_block_ms=10000, request_timeout_ms=10000, api_version_auto_timeout_ms=10000)
    return producers[compression]
futures = []
for r in spec["records"]:
    futures.append(producer(r["compression"]).send(
        spec["topic"], key=raw(r["key"]), value=raw(r["value"]),
        headers=[(h[0], raw(h[1])) for h in (r["headers"] or [])],
        partition=r["partition"], timestamp_ms=r["timestampMs"]))
for p in producers.values():
    p.flush(timeout=10)
out = []
for f in futures:
    md = f.get(timeout=10)
    out.append({"partition": md.partition, "offset": md.offset, "timestamp": md.timestamp})
for p in producers.values():
    p.close(timeout=5)
json.dump({"version": __import__("kafka").__version__, "records": out}, sys.stdout)
`

// TestWireKafkaPythonProduceReadByConsumeRoute: kafka-python writes records
// with arbitrary binary keys, values and header values (not UTF-8) to the
// resolved topic; the consume route returns them with identical bytes.
func TestWireKafkaPythonProduceReadByConsumeRoute(t *testing.T) {
	py := testclients.KafkaPython(t)
	e := startEnv(t)
	s := wireNewSource(e)

	const n = 600
	rng := rand.New(rand.NewPCG(7, 11))
	randBytes := func(max int) []byte {
		b := make([]byte, rng.IntN(max+1))
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return b
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	reversed := slices.Clone(all)
	slices.Reverse(reversed)
	headerKeys := []string{"bin", "ünï-ключ", "dup", "dup", "", "k,=v"}

	type pyHeader [2]*string // name, base64 value
	type pyRecord struct {
		Key         *string    `json:"key"`
		Value       *string    `json:"value"`
		Headers     []pyHeader `json:"headers"`
		Partition   *int32     `json:"partition"`
		TimestampMs *int64     `json:"timestampMs"`
		Compression string     `json:"compression"`
	}
	b64 := func(b []byte) *string {
		if b == nil {
			return nil
		}
		s := base64.StdEncoding.EncodeToString(b)
		return &s
	}
	want := make([]wireRecord, n)
	recs := make([]pyRecord, n)
	nonUTF8 := 0
	for i := range n {
		w := wireRecord{Key: randBytes(64), Value: randBytes(600), TsMs: -1}
		switch {
		case i == 0:
			w.Key, w.Value = all, reversed
		case i == 1:
			w.Key, w.Value = reversed, all
		case i%10 == 3:
			w.Key = nil // kafka-python refuses a record with both null
		case i%10 == 5:
			w.Key = []byte{}
		case i%10 == 7:
			w.Value = nil
		case i%10 == 9:
			w.Value = []byte{}
		}
		if len(w.Value) > 0 && i%10 != 9 {
			// Guarantee bytes that are not UTF-8 (a lone continuation byte, 0xff, NUL).
			w.Value = append(w.Value, 0x80, 0xff, 0x00, 0xc3, 0x28)
		}
		for j := range rng.IntN(4) {
			h := fabrictest.Header{Key: headerKeys[(i+j)%len(headerKeys)], Value: randBytes(40)}
			if j == 0 {
				h.Value = append(h.Value, 0xfe, 0x00, 0xe2, 0x82)
			}
			w.Headers = append(w.Headers, h)
		}
		r := pyRecord{Key: b64(w.Key), Value: b64(w.Value), Compression: []string{"", "gzip"}[i%2]}
		if i%3 == 0 {
			p := int32(i % 4)
			r.Partition = &p
		}
		if i%4 == 1 {
			ms := int64(1_600_000_000_000 + i)
			r.TimestampMs, w.TsMs = &ms, ms
		}
		for _, h := range w.Headers {
			k := h.Key
			r.Headers = append(r.Headers, pyHeader{&k, b64(h.Value)})
		}
		if !utf8.Valid(w.Key) || !utf8.Valid(w.Value) {
			nonUTF8++
		}
		want[i], recs[i] = w, r
	}
	if nonUTF8 < n/2 {
		t.Fatalf("only %d of %d records carry non-UTF-8 bytes", nonUTF8, n)
	}
	spec, err := json.Marshal(map[string]any{"bootstrap": s.bootstrap, "topic": s.topic, "records": recs})
	if err != nil {
		t.Fatal(err)
	}

	out := testclients.Run(t, spec, py, "-c", wirePythonProducer)
	var ans struct {
		Version string `json:"version"`
		Records []struct {
			Partition int32 `json:"partition"`
			Offset    int64 `json:"offset"`
			Timestamp int64 `json:"timestamp"`
		} `json:"records"`
	}
	if err := json.Unmarshal(out, &ans); err != nil {
		t.Fatalf("kafka-python output: %v: %s", err, out)
	}
	if len(ans.Records) != n {
		t.Fatalf("kafka-python reported %d records, want %d", len(ans.Records), n)
	}
	pos := make([]fabrictest.Position, n)
	for i, r := range ans.Records {
		pos[i] = fabrictest.Position{Partition: r.Partition, Offset: r.Offset}
		if want[i].TsMs < 0 {
			want[i].TsMs = r.Timestamp // the producer's own CreateTime
		}
	}
	// Records went through two producers, so order within a partition holds
	// per producer only; wireSpread's order check does not apply here.
	per := map[int32]int{}
	for _, p := range pos {
		per[p.Partition]++
	}
	if len(per) < 2 {
		t.Fatalf("kafka-python wrote every record to one partition: %v", per)
	}
	t.Logf("kafka-python %s produced %d records (%d with non-UTF-8 key or value); per partition: %v", ans.Version, n, nonUTF8, per)

	wireCompare(t, "consume route", s.consume(n), want, pos, 0, 0)
}
