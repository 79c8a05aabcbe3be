package runtime

// The journal protocol (save the batch, write it under its seq, clear it)
// behind the exactly-once delivery of Microsoft's Eventstream destinations:
// https://learn.microsoft.com/fabric/real-time-intelligence/event-streams/add-destination-lakehouse
// These tests pin the pending batch's encoding: rows decoded from their
// record's value are journalled as the value alone and come back equal.

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/rows"
	gojson "github.com/goccy/go-json"
	"github.com/twmb/franz-go/pkg/kgo"
)

func journalSample() []outRow {
	rec := func(v string, off int64) outRow {
		var value []byte
		if v != "<nil>" {
			value = []byte(v)
		}
		return outRow{Row: rows.FromValue(value), Key: []byte("k"), Value: value, Partition: 2, Offset: off, fromValue: true,
			Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("v")}}}
	}
	return []outRow{
		rec(`{"id":9007199254740993,"t":1.50,"s":"x","n":null,"o":{"a":[1,2.0]}}`, 7),
		rec(`plain text`, 8),
		rec(``, 9),
		rec(`<nil>`, 10),
		rec(string([]byte{0xff, 0}), 11),
		{Row: rows.Row{"count": json.Number("3")}, Value: []byte(`{"count":3}`), Partition: -1, Offset: -1},
		{Row: rows.Row{}, Partition: -1, Offset: -1},
	}
}

// same compares what a writer sees: the row (decoded from the value when
// the journal left it out) and the record's coordinates
// (an empty value comes back nil, as the journal has always written it).
func same(t *testing.T, got, want []outRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if !reflect.DeepEqual(g.row(), w.row()) {
			t.Errorf("row %d: got %#v, want %#v", i, g.row(), w.row())
		}
		g.Row, w.Row, g.fromValue, w.fromValue = nil, nil, false, false
		if len(w.Value) == 0 {
			w.Value = nil
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("row %d: got %#v, want %#v", i, g, w)
		}
	}
}

func TestJournalRowsRoundTrip(t *testing.T) {
	in := journalSample()
	raw, err := marshalJournalRows(in)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(raw), `"row"`) != 4 { // empty and null values, the derived rows
		t.Errorf("want the row left out for values that decode again, got %s", raw)
	}
	var pend pendingBatch
	if err := pend.decode(raw); err != nil {
		t.Fatal(err)
	}
	if pend.Split {
		t.Error("a plain array read as split")
	}
	same(t, pend.Rows, in)
	split, err := (&pendingBatch{Split: true, Rows: in}).encode()
	if err != nil {
		t.Fatal(err)
	}
	var back pendingBatch
	if err := back.decode(split); err != nil {
		t.Fatal(err)
	}
	if !back.Split {
		t.Error("split form read as plain")
	}
	same(t, back.Rows, in)
}

// A journal written before (every row with its "row") still replays.
func TestJournalRowsReadsRowsWrittenInFull(t *testing.T) {
	in := journalSample()
	type full struct {
		Row       rows.Row           `json:"row"`
		Key       []byte             `json:"key,omitempty"`
		Value     []byte             `json:"value,omitempty"`
		Partition int32              `json:"partition"`
		Offset    int64              `json:"offset"`
		Headers   []kgo.RecordHeader `json:"headers,omitempty"`
	}
	old := make([]full, len(in))
	for i, r := range in {
		old[i] = full{r.Row, r.Key, r.Value, r.Partition, r.Offset, r.Headers}
	}
	raw, _ := gojson.Marshal(old)
	for _, form := range [][]byte{raw, []byte(`{"split":true,"rows":` + string(raw) + `}`)} {
		var pend pendingBatch
		if err := pend.decode(form); err != nil {
			t.Fatal(err)
		}
		same(t, pend.Rows, in)
	}
}

// A whole batch is journalled in the binary form: records' bytes as they
// are (nil and empty kept apart), rows made by operators with their row.
func TestJournalBinaryRoundTrip(t *testing.T) {
	in := journalSample()
	raw, err := appendBinaryRows(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	var pend pendingBatch
	if err := pend.decode(raw); err != nil {
		t.Fatal(err)
	}
	if pend.Split {
		t.Error("the binary form read as split")
	}
	for i := range in {
		g, w := pend.Rows[i], in[i]
		if !reflect.DeepEqual(g.row(), w.row()) {
			t.Errorf("row %d: got %#v, want %#v", i, g.row(), w.row())
		}
		if (g.Value == nil) != (w.Value == nil) || string(g.Value) != string(w.Value) || string(g.Key) != string(w.Key) {
			t.Errorf("row %d: value %q key %q, want %q %q", i, g.Value, g.Key, w.Value, w.Key)
		}
		if g.Partition != w.Partition || g.Offset != w.Offset || !reflect.DeepEqual(g.Headers, w.Headers) || g.fromValue != w.fromValue {
			t.Errorf("row %d: got %+v, want %+v", i, g, w)
		}
	}
}

// A binary batch cut short anywhere, or with bytes after it, is an
// error, never a panic or a shorter batch.
func TestJournalBinaryRefusesCorruptBatches(t *testing.T) {
	raw, err := appendBinaryRows(nil, journalSample())
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n < len(raw); n++ {
		if _, err := decodeBinaryRows(raw[:n]); err == nil {
			t.Fatalf("a batch cut at %d of %d bytes decoded", n, len(raw))
		}
	}
	if _, err := decodeBinaryRows(append(raw, 0)); err == nil {
		t.Fatal("a batch with a byte after it decoded")
	}
}
