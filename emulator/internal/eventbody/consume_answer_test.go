package eventbody

// The consume route's answer as the JSON encoder wrote it before
// WriteConsumeAnswer (the reference the test compares with). The record
// columns are those of Spark's Kafka source:
// https://spark.apache.org/docs/latest/structured-streaming-kafka-integration.html

import (
	"bytes"
	"encoding/base64"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	gojson "github.com/goccy/go-json"
	"github.com/twmb/franz-go/pkg/kgo"
)

// headerJSON is one Kafka header; value is base64 (null for a null value).
type headerJSON struct {
	Key   string `json:"key"`
	Value []byte `json:"value"`
}

// recordJSON carries Kafka's columns, as Spark's Kafka source names them.
// key and value are base64 so every byte survives; null stays null.
type recordJSON struct {
	Key           []byte       `json:"key"`
	Value         []byte       `json:"value"`
	Topic         string       `json:"topic"`
	Partition     int32        `json:"partition"`
	Offset        int64        `json:"offset"`
	Timestamp     string       `json:"timestamp"`
	TimestampType int          `json:"timestampType"`
	Headers       []headerJSON `json:"headers"`
}

func renderRecord(r *kgo.Record) recordJSON {
	j := recordJSON{
		Key: r.Key, Value: r.Value, Topic: r.Topic, Partition: r.Partition, Offset: r.Offset,
		Timestamp: r.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Headers:   make([]headerJSON, len(r.Headers)),
	}
	if r.Attrs.TimestampType() == 1 {
		j.TimestampType = 1
	}
	for i, h := range r.Headers {
		j.Headers[i] = headerJSON{Key: h.Key, Value: h.Value}
	}
	return j
}

func TestWriteConsumeAnswerMatchesEncoder(t *testing.T) {
	base := time.Date(2026, 11, 30, 20, 1, 2, 345_678_901, time.FixedZone("x", 3600))
	recs := []*kgo.Record{
		{Key: nil, Value: []byte(`{"a":1}`), Topic: "es.ds", Partition: 0, Offset: 0, Timestamp: base},
		{Key: []byte{}, Value: nil, Topic: "es.ds", Partition: 0, Offset: 1, Timestamp: base.Add(time.Millisecond)},
		{Key: []byte{0, 0xff, '<'}, Value: []byte("text"), Topic: "es.ds", Partition: 3, Offset: 12,
			Timestamp: base.Add(1500 * time.Millisecond),
			Headers:   []kgo.RecordHeader{{Key: "plain", Value: []byte("v")}, {Key: "a<b>\"\\\n\u00e9&", Value: nil}, {Key: "", Value: []byte{}}}},
		{Value: []byte("x"), Topic: "es.ds", Partition: 10, Offset: 99, Timestamp: time.UnixMilli(0)},
		{Value: []byte("y"), Topic: "es.ds", Partition: 2, Offset: 5, Timestamp: time.UnixMilli(-62_167_219_300_000)},
		{Value: []byte("z"), Topic: "es.ds", Partition: 2, Offset: 6, Timestamp: time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	var many []*kgo.Record // written in two halves at once
	for i := range parallelRecords*2 + 1 {
		r := *recs[i%len(recs)]
		r.Offset = int64(i)
		r.Timestamp = base.Add(time.Duration(i) * 300 * time.Millisecond)
		many = append(many, &r)
	}
	for _, b := range []*broker.Batch{
		{Next: map[int32]int64{}, Complete: true},
		{Records: recs, Next: map[int32]int64{0: 2, 1: 0, 2: 7, 3: 13, 10: 100}, Complete: false},
		{Records: many, Next: map[int32]int64{0: int64(len(many))}, Complete: true},
	} {
		out := make([]recordJSON, len(b.Records))
		for i, r := range b.Records {
			out[i] = renderRecord(r)
		}
		next := map[string]int64{}
		for p, o := range b.Next {
			next[strconv.Itoa(int(p))] = o
		}
		var want bytes.Buffer
		if err := gojson.NewEncoder(&want).Encode(map[string]any{
			"value": out, "count": len(out), "complete": b.Complete,
			"nextOffsets": map[string]any{"es.ds": next},
		}); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second time in a pooled buffer
			w := httptest.NewRecorder()
			if err := WriteConsumeAnswer(w, "es.ds", b); err != nil {
				t.Fatal(err)
			}
			if got := w.Body.String(); got != want.String() {
				t.Errorf("answer differs from the encoder's:\n got %s\nwant %s", got, want.String())
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if n, bound := w.Body.Len(), answerSize("es.ds", b); n > bound {
				t.Errorf("answer of %d bytes beyond answerSize's bound %d: the buffer grows", n, bound)
			}
		}
	}
}

// TestAppendBase64IsStandardBase64: the AVX2 encoder writes what
// encoding/base64's StdEncoding writes, for every length from 0 to 600
// bytes (across its 24- and 32-byte blocks) and every byte value, after
// text already in the buffer; nil is null.
func TestAppendBase64IsStandardBase64(t *testing.T) {
	for n := 0; n <= 600; n++ {
		v := make([]byte, n)
		for i := range v {
			v[i] = byte(i*131 + n*7)
		}
		got := appendBase64([]byte("x,"), v)
		want := `x,"` + base64.StdEncoding.EncodeToString(v) + `"`
		if string(got) != want {
			t.Fatalf("%d bytes: got %s, want %s", n, got, want)
		}
		if len(got)-2 != base64Len(v) {
			t.Fatalf("%d bytes: base64Len %d, wrote %d", n, base64Len(v), len(got)-2)
		}
	}
	if got := appendBase64(nil, nil); string(got) != "null" {
		t.Fatalf("nil: %s", got)
	}
}
