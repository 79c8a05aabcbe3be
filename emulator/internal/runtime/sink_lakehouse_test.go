package runtime

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// TestLakehouseWriterRecoversPanics: a panic of the Delta writer is the
// last line of defence's to catch: the batch's rows are parked with the
// panic as their reason and their records' coordinates, the write
// succeeds, and the next batch is written.
func TestLakehouseWriterRecoversPanics(t *testing.T) {
	dir := t.TempDir()
	tbl, err := delta.Open(filepath.Join(dir, "Tables", "t"))
	if err != nil {
		t.Fatal(err)
	}
	rejected := filepath.Join(dir, "Files", "_rejected", "t", "d1.jsonl")
	w := &lakehouseWriter{
		dest: store.Destination{ID: "d1", Target: "t"}, table: tbl, logger: slog.New(slog.DiscardHandler),
		rej: &rejecter{file: rejected, stats: &rejections{}, now: time.Now},
	}
	w.appendFn = func(context.Context, []rows.Row, ...delta.AppendOption) (delta.Report, error) {
		panic("definition level out of range: 258 not in [0:255]")
	}
	out := []outRow{{Row: rows.Row{"a": 1}, Value: []byte(`{"a":1}`), Partition: 2, Offset: 40}}
	if err := w.write(context.Background(), 1, out); err != nil {
		t.Fatalf("write after a panic: %v", err)
	}
	parked, err := os.ReadFile(rejected)
	if err != nil || !strings.Contains(string(parked), "definition level out of range") ||
		!strings.Contains(string(parked), `"partition":2`) || !strings.Contains(string(parked), `"offset":40`) {
		t.Fatalf("parked: %s (%v)", parked, err)
	}
	if n, last := w.rej.stats.get(); n != 1 || !strings.Contains(last, "Delta writer failed") {
		t.Fatalf("rejections %d %q", n, last)
	}
	w.appendFn = nil
	if err := w.write(context.Background(), 2, []outRow{{Row: rows.Row{"a": 2}, Offset: 41}}); err != nil {
		t.Fatal(err)
	}
	snap, err := delta.ReadTable(tbl.Dir())
	if err != nil || len(snap.Rows) != 1 {
		t.Fatalf("table after the panic: %v rows, %v", snap, err)
	}
}

// lakehouseFixture is a runtime with a fixed clock and a Lakehouse
// writer for destination d1, bound with spec.
func lakehouseFixture(t *testing.T, spec eventstream.Spec) (*Runtime, rowWriter, string) {
	t.Helper()
	dir := t.TempDir()
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	rt := New(Config{OneLakeDir: dir, Now: func() time.Time { return at }})
	d := store.Destination{ID: "d1", Type: "Lakehouse", WorkspaceID: "ws", ItemID: "lh", Target: "t", Spec: spec.Encode()}
	w, err := writerOf(rt, d)
	if err != nil {
		t.Fatal(err)
	}
	return rt, w, filepath.Join(dir, "ws", "lh")
}

// outRows turns JSON objects into a batch's rows, at offsets from first.
func outRows(first int64, objects ...string) []outRow {
	out := make([]outRow, len(objects))
	for i, o := range objects {
		out[i] = outRow{Row: rows.FromValue([]byte(o)), Value: []byte(o), Offset: first + int64(i)}
	}
	return out
}

// TestLakehouseWriterEnforcesByDefault follows fabric-docs "Add a
// lakehouse destination to an eventstream": the first record makes the
// schema (its columns in the record's member order), fields the table lacks are dropped (counted, one runtime-log
// warning per field), and rows that cannot be projected are data
// conversion errors, parked with their reason.
func TestLakehouseWriterEnforcesByDefault(t *testing.T) {
	rt, w, lh := lakehouseFixture(t, eventstream.Spec{})
	ctx := context.Background()
	for seq, batch := range [][]outRow{
		outRows(0, `{"id":1,"a":"x"}`),
		outRows(1, `{"id":2,"b":"y"}`, `{"id":3,"b":"z"}`),
		outRows(3, `{"id":1.5}`, `{"c":1}`, `{"id":4}`),
	} {
		if err := w.write(ctx, int64(seq+1), batch); err != nil {
			t.Fatalf("batch %d: %v", seq+1, err)
		}
	}
	snap, err := delta.ReadTable(filepath.Join(lh, "Tables", "t"))
	if err != nil || snap.Schema.String() != "struct<id:long,a:string>" || len(snap.Rows) != 4 {
		t.Fatalf("table: %v (%v)", snap, err)
	}
	node := rt.Insights("d1")
	if c := node.Counters(); c[insights.DroppedFields] != 2 || c[insights.DataConversionErrors] != 2 {
		t.Fatalf("counters %v, want 2 dropped fields and 2 conversion errors", c)
	}
	var dropWarnings, convWarnings int
	for _, e := range node.Logs() {
		switch {
		case e.Attrs["field"] == "b":
			dropWarnings++
			if e.Level != insights.LevelWarning || e.Attrs["value"] != `"y"` || !e.Time.Equal(rt.cfg.Now()) {
				t.Fatalf("dropped-field warning %+v", e)
			}
		case strings.Contains(e.Message, `"id"`) && strings.Contains(e.Message, "1.5"):
			convWarnings++
		}
	}
	if dropWarnings != 1 || convWarnings != 1 {
		t.Fatalf("%d dropped-field warnings (want 1), %d conversion warnings (want 1): %+v", dropWarnings, convWarnings, node.Logs())
	}
	parked, err := os.ReadFile(filepath.Join(lh, "Files", "_rejected", "t", "d1.jsonl"))
	if err != nil || strings.Count(string(parked), "\n") != 2 || !strings.Contains(string(parked), `"offset":3`) ||
		!strings.Contains(string(parked), "no field in common") || !strings.Contains(string(parked), `"metric":"DataConversionErrors"`) {
		t.Fatalf("parked: %s (%v)", parked, err)
	}
}

// TestLakehouseWriterEvolvesWhenBoundSo: the "evolve" extension keeps the
// writer's schema evolution: new fields become columns, nothing is dropped.
func TestLakehouseWriterEvolvesWhenBoundSo(t *testing.T) {
	rt, w, lh := lakehouseFixture(t, eventstream.Spec{SchemaMode: eventstream.SchemaEvolve})
	ctx := context.Background()
	if err := w.write(ctx, 1, outRows(0, `{"id":1,"a":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.write(ctx, 2, outRows(1, `{"id":2,"b":"y"}`, `{"id":"three"}`)); err != nil {
		t.Fatal(err)
	}
	snap, err := delta.ReadTable(filepath.Join(lh, "Tables", "t"))
	if err != nil || snap.Schema.String() != "struct<id:long,a:string,b:string>" || len(snap.Rows) != 2 {
		t.Fatalf("table: %v (%v)", snap, err)
	}
	if c := rt.Insights("d1").Counters(); c[insights.DroppedFields] != 0 || c[insights.DataConversionErrors] != 1 {
		t.Fatalf("counters %v", c)
	}
}

func TestLakehouseWriterRefusesAnUnknownSchemaMode(t *testing.T) {
	rt := New(Config{OneLakeDir: t.TempDir()})
	d := store.Destination{ID: "d1", Type: "Lakehouse", WorkspaceID: "ws", ItemID: "lh", Target: "t",
		Spec: eventstream.Spec{SchemaMode: "merge"}.Encode()}
	if _, err := writerOf(rt, d); err == nil || !strings.Contains(err.Error(), `"merge"`) {
		t.Fatalf("error %v", err)
	}
}

// TestLakehouseColumnOrder: a new table's columns follow the first record's
// member order (fabric-docs "Add a lakehouse destination to an
// eventstream": the first record makes the schema), also when the records
// before it are parked; rows made by operators follow the operators'
// output columns, or name order when the operators do not define them.
func TestLakehouseColumnOrder(t *testing.T) {
	for _, c := range []struct {
		name    string
		ops     []string // setOperatorColumns' argument; nil: rows are their records
		byOps   bool
		objects []string
		want    string
	}{
		{"record's order", nil, false, []string{`{"z":1,"m":{"y":2,"x":3},"a":4}`}, "struct<z:long,m:struct<y:long,x:long>,a:long>"},
		{"after a parked record", nil, false, []string{`{}`, `{"y":1,"x":2}`}, "struct<y:long,x:long>"},
		{"value that is no object", nil, false, []string{`plain text`}, "struct<value:string>"},
		{"operators' columns", []string{"z", "ghost", "m"}, true, []string{`{"a":1,"m":{"y":2,"x":3},"z":4}`}, "struct<z:long,m:struct<x:long,y:long>,a:long>"},
		{"operators without an order", nil, true, []string{`{"z":1,"a":2}`}, "struct<a:long,z:long>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, w, lh := lakehouseFixture(t, eventstream.Spec{})
			out := outRows(0, c.objects...)
			if c.byOps {
				w.(columnOrderer).setOperatorColumns(c.ops)
				for i := range out {
					out[i].Offset = -1 // as derived() makes them
				}
			}
			if err := w.write(context.Background(), 1, out); err != nil {
				t.Fatal(err)
			}
			snap, err := delta.ReadTable(filepath.Join(lh, "Tables", "t"))
			if err != nil || snap.Schema.String() != c.want {
				t.Fatalf("schema %v, want %s (%v)", snap.Schema, c.want, err)
			}
		})
	}
}

// TestProcessorOrdersColumnsByOperators: through the processor, records
// written as they are make columns in their member order, and a
// ManageFields projection (Fabric's is a projection onto the columns it
// lists, in their order) makes them in its order.
func TestProcessorOrdersColumnsByOperators(t *testing.T) {
	for _, c := range []struct {
		ops, want string
	}{
		{"", "struct<z:long,m:long,a:long>"},
		{`[{"type":"ManageFields","keep":["z","a"],"rename":{"z":"zed"}}]`, "struct<zed:long,a:long>"},
	} {
		st, dest := journalStore(t)
		ctx := context.Background()
		_, w, lh := lakehouseFixture(t, eventstream.Spec{})
		var ops []pipeline.Operator
		if c.ops != "" {
			var err error
			if ops, err = pipeline.Parse([]byte(c.ops)); err != nil {
				t.Fatal(err)
			}
		}
		rej, _ := testRejecter(t)
		p, err := newProcessor(ctx, st, dest, ops, w, rej, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Write(ctx, records(`{"z":1,"m":2,"a":3}`)); err != nil {
			t.Fatal(err)
		}
		snap, err := delta.ReadTable(filepath.Join(lh, "Tables", "t"))
		if err != nil || snap.Schema.String() != c.want {
			t.Fatalf("operators %s: schema %v, want %s (%v)", c.ops, snap.Schema, c.want, err)
		}
	}
}

// writerOf builds d's writer as launchDrain does, with its spec decoded.
func writerOf(rt *Runtime, d store.Destination) (rowWriter, error) {
	spec, err := eventstream.SpecOf(d)
	if err != nil {
		return nil, err
	}
	return writers[d.Type](rt, d, spec)
}
