package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/rows"
	"github.com/fabrictest/fabrictest/kustofake"
)

// TestEventhouseConflictsInInsights: against the kustofake stand-in (no
// Kusto engine runs here), a value that does not fit its column lands as
// null and counts as a data conversion error, as Kusto documents for a
// value that does not parse as its column's type ("Kusto ingestion
// mapping", learn.microsoft.com/kusto/management/mappings; fabric-docs
// monitor.md names the metric "Data conversion errors"); a field lost to
// a column-name collision counts in DroppedFields. One runtime-log warning
// per column, however many values; a failed batch counts nothing.
func TestEventhouseConflictsInInsights(t *testing.T) {
	k := kustofake.Start(t)
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	rt := New(Config{KQLURL: k.URL(), Now: func() time.Time { return at }})
	d := store.Destination{ID: "dest-1", Type: "Eventhouse", Target: "T", Spec: eventstream.Spec{Database: kustofake.DefaultDatabase}.Encode()}
	w, err := writerOf(rt, d)
	if err != nil {
		t.Fatal(err)
	}
	row := func(v string) outRow {
		var r rows.Row
		dec := json.NewDecoder(strings.NewReader(v))
		dec.UseNumber()
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		return outRow{Row: r, Offset: -1}
	}
	ctx := context.Background()
	if err := w.write(ctx, 1, []outRow{row(`{"q":1}`)}); err != nil { // q becomes long
		t.Fatal(err)
	}
	if err := w.write(ctx, 2, []outRow{row(`{"q":1.5}`), row(`{"q":"x"}`), row(`{"q":3,"user_id":"a","user:id":"b"}`)}); err != nil {
		t.Fatal(err)
	}
	node := rt.Insights(d.ID)
	c := node.Counters()
	if c[insights.DataConversionErrors] != 2 || c[insights.DroppedFields] != 1 {
		t.Fatalf("counters %v, want 2 data conversion errors and 1 dropped field", c)
	}
	logs := node.Logs()
	if len(logs) != 2 {
		t.Fatalf("runtime logs %+v, want one warning per column and kind", logs)
	}
	var conv, drop bool
	for _, l := range logs {
		conv = conv || l.Level == insights.LevelWarning && strings.Contains(l.Message, `value 1.5 does not fit column "q" (long) of table T; Kusto writes null`)
		drop = drop || l.Level == insights.LevelWarning && strings.Contains(l.Message, `field "user:id" was not written into table T`)
	}
	if !conv || !drop || !logs[0].Time.Equal(at) {
		t.Fatalf("runtime logs %+v", logs)
	}

	// What lands is unchanged: the values that did not fit are null.
	client, err := rt.Kusto()
	if err != nil {
		t.Fatal(err)
	}
	landed, err := client.Rows(ctx, kustofake.DefaultDatabase, "T")
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for _, r := range landed {
		if r["q"] == nil {
			got++
		}
	}
	if got != 2 || len(landed) != 4 {
		t.Fatalf("%d rows, %d with a null q; want 4 and 2", len(landed), got)
	}

	// A batch the engine refuses counts nothing.
	k.Down()
	if err := w.write(ctx, 3, []outRow{row(`{"q":"y"}`)}); err == nil {
		t.Fatal("write with the engine down succeeded")
	}
	if c := node.Counters(); c[insights.DataConversionErrors] != 2 {
		t.Fatalf("a failed batch counted: %v", c)
	}
}

// TestEventhouseDirectIngestionDropsExtraFields: a DirectIngestion
// destination keeps an existing table's columns (Kusto's mapping adds
// none: learn.microsoft.com/kusto/management/mappings); each field not
// written counts in DroppedFields, with one warning per field.
func TestEventhouseDirectIngestionDropsExtraFields(t *testing.T) {
	k := kustofake.Start(t)
	rt := New(Config{KQLURL: k.URL()})
	spec := eventstream.Spec{Database: kustofake.DefaultDatabase, IngestionMode: "DirectIngestion"}
	d := store.Destination{ID: "dest-2", Type: "Eventhouse", Target: "Orders", Spec: spec.Encode()}
	w, err := writerOf(rt, d)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first := outRow{Row: rows.Row{"id": json.Number("1")}, Offset: 0}
	if err := w.write(ctx, 1, []outRow{first}); err != nil { // creates Orders (id:long)
		t.Fatal(err)
	}
	extra := func(id string) outRow {
		return outRow{Row: rows.Row{"id": json.Number(id), "coupon": "X"}, Offset: 1}
	}
	if err := w.write(ctx, 2, []outRow{extra("2"), extra("3")}); err != nil {
		t.Fatal(err)
	}
	node := rt.Insights(d.ID)
	if c := node.Counters(); c[insights.DroppedFields] != 2 {
		t.Fatalf("counters %v, want 2 dropped fields", c)
	}
	logs := node.Logs()
	if len(logs) != 1 || !strings.Contains(logs[0].Message, `field "coupon" was not written into table Orders: table ['Orders'] has no column ['coupon']`) {
		t.Fatalf("runtime logs %+v", logs)
	}
	client, err := rt.Kusto()
	if err != nil {
		t.Fatal(err)
	}
	landed, err := client.Rows(ctx, kustofake.DefaultDatabase, "Orders")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range landed {
		if _, ok := r["coupon"]; ok || len(landed) != 3 {
			t.Fatalf("rows %v: want 3 without a coupon column", landed)
		}
	}
}
