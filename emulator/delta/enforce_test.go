package delta_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
	"github.com/fabrictest/fabrictest/internal/testclients"
)

// The tests of this file follow fabric-docs "Add a lakehouse destination to
// an eventstream" (schema enforcement: the first record makes the schema,
// extra fields are not written, missing ones are null, no column in common
// is a schema conversion failure) and, for types, the conversion rules of
// Azure Stream Analytics' "Data types" reference, as the package
// documentation's table says.

func enforcing(t testing.TB, dir string) *delta.Table {
	t.Helper()
	return mustOpen(t, dir, delta.WithSchemaMode(delta.SchemaEnforce))
}

// appendReport appends under enforcement and fails the test on an error.
func appendReport(t testing.TB, tbl *delta.Table, batch []rows.Row) delta.Report {
	t.Helper()
	r, err := tbl.AppendReport(context.Background(), batch)
	if err != nil {
		t.Fatalf("AppendReport: %v", err)
	}
	return r
}

// rowErrors returns the row errors of a *RowsError, failing otherwise.
func rowErrors(t testing.TB, err error) []error {
	t.Helper()
	var re *delta.RowsError
	if !errors.As(err, &re) {
		t.Fatalf("error %v (%T) is not a *RowsError", err, err)
	}
	return re.Errs
}

func TestEnforceFirstRecordMakesTheSchema(t *testing.T) {
	for _, oneBatch := range []bool{true, false} {
		t.Run(fmt.Sprint("one batch ", oneBatch), func(t *testing.T) {
			dir := tableDir(t)
			tbl := enforcing(t, dir)
			batch := jsonRows(t, `{"id":1,"a":"x"}`, `{"id":2,"b":"y"}`)
			var dropped []delta.DroppedField
			if oneBatch {
				dropped = appendReport(t, tbl, batch).Dropped
			} else {
				if r := appendReport(t, tbl, batch[:1]); len(r.Dropped) != 0 {
					t.Fatalf("first record dropped %v", r.Dropped)
				}
				dropped = appendReport(t, tbl, batch[1:]).Dropped
			}
			want := []delta.DroppedField{{Path: "b", Count: 1, Example: `"y"`}}
			if fmt.Sprint(dropped) != fmt.Sprint(want) {
				t.Fatalf("dropped %v, want %v", dropped, want)
			}
			snap := checkTable(t, dir)
			// Without WithFieldOrder the writer does not know the
			// record's member order: its columns come in name order
			// (order_test.go has them in the record's order).
			if got := strings.Join(snap.Schema.Names(), ","); got != "a,id" {
				t.Fatalf("columns %s, want a,id", got)
			}
			assertRows(t, snap, []map[string]any{{"id": int64(1), "a": "x"}, {"id": int64(2)}})
		})
	}
}

// TestEnforceConversions: each case makes a one-column table from its
// first value, then writes the second value: it is stored as want, or
// rejected as a data conversion error when want is nil.
func TestEnforceConversions(t *testing.T) {
	cases := []struct {
		name, first, second string
		column              string
		want                any
	}{
		{"long takes an integer", `1`, `7`, "long", int64(7)},
		{"long takes 1.5? no: a data conversion error", `1`, `1.5`, "long", nil},
		{"long takes an integral fraction", `1`, `2.0`, "long", int64(2)},
		{"long takes an integral exponent", `1`, `1e3`, "long", int64(1000)},
		{"long refuses an overflow", `1`, `9223372036854775808`, "long", nil},
		{"long takes a boolean as 1", `1`, `true`, "long", int64(1)},
		{"long refuses a numeric string", `1`, `"3"`, "long", nil},
		{"long refuses an object", `1`, `{"a":1}`, "long", nil},
		{"double takes an integer as a double", `1.5`, `2`, "double", 2.0},
		{"double takes a boolean as 0.0", `1.5`, `false`, "double", 0.0},
		{"double refuses a string", `1.5`, `"x"`, "double", nil},
		{"string takes a number as text", `"s"`, `12.50`, "string", "12.50"},
		{"string takes a boolean as text", `"s"`, `true`, "string", "true"},
		{"string takes an object as JSON", `"s"`, `{"a":[1,"x"]}`, "string", `{"a":[1,"x"]}`},
		{"string takes a timestamp as it was sent", `"s"`, `"2024-05-01T12:00:00+02:00"`, "string", "2024-05-01T12:00:00+02:00"},
		{"boolean refuses a number", `true`, `1`, "boolean", nil},
		{"boolean refuses a string", `true`, `"true"`, "boolean", nil},
		{"timestamp takes an offset time", `"2024-05-01T10:00:00Z"`, `"2024-05-01T12:00:00+02:00"`, "timestamp", ts("2024-05-01T10:00:00Z")},
		{"timestamp refuses a time without a zone", `"2024-05-01T10:00:00Z"`, `"2024-05-01T10:00:00"`, "timestamp", nil},
		{"timestamp refuses a number", `"2024-05-01T10:00:00Z"`, `1714557600`, "timestamp", nil},
		{"struct refuses a number", `{"a":1}`, `5`, "struct<a:long>", nil},
		{"array takes converted elements", `[1.5]`, `[1,2]`, "array<double>", []any{1.0, 2.0}},
		{"array refuses an object", `[1]`, `{"a":1}`, "array<long>", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := tableDir(t)
			tbl := enforcing(t, dir)
			appendReport(t, tbl, jsonRows(t, `{"f":`+c.first+`}`))
			if got := tbl.Schema().String(); got != "struct<f:"+c.column+">" {
				t.Fatalf("schema %s, want column f %s", got, c.column)
			}
			_, err := tbl.AppendReport(context.Background(), jsonRows(t, `{"f":`+c.second+`}`))
			if c.want == nil {
				errs := rowErrors(t, err)
				var conv *delta.ConversionError
				if len(errs) != 1 || !errors.As(errs[0], &conv) || conv.Row != 0 || conv.Field != "f" ||
					conv.ColumnType != c.column || conv.Value != c.second {
					t.Fatalf("error %v, want a conversion error of field f, %s, value %s", err, c.column, c.second)
				}
				if tbl.Version() != 0 {
					t.Fatalf("a rejected batch committed version %d", tbl.Version())
				}
				return
			}
			if err != nil {
				t.Fatalf("AppendReport: %v", err)
			}
			snap := checkTable(t, dir)
			if len(snap.Rows) != 2 {
				t.Fatalf("%d rows, want 2", len(snap.Rows))
			}
			assertRows(t, &delta.Snapshot{Schema: snap.Schema, Rows: snap.Rows[1:]}, []map[string]any{{"f": c.want}})
		})
	}
}

func TestEnforceReportsEveryRejectedRowAndWritesNothing(t *testing.T) {
	dir := tableDir(t)
	tbl := enforcing(t, dir)
	appendReport(t, tbl, jsonRows(t, `{"q":1}`))
	batch := jsonRows(t, `{"q":2}`, `{"q":1.5}`, `{"other":1}`, `{}`, `{"q":"x","r":1}`, `{"q":3}`)
	_, err := tbl.AppendReport(context.Background(), batch)
	errs := rowErrors(t, err)
	var got []string
	for _, e := range errs {
		var conv *delta.ConversionError
		if !errors.As(e, &conv) {
			t.Fatalf("row error %v is not a *ConversionError", e)
		}
		got = append(got, fmt.Sprintf("%d:%s:%s", conv.Row, conv.Field, conv.Value))
		if row, ok := delta.RowOf(e); !ok || row != conv.Row {
			t.Fatalf("RowOf(%v) = %d, %v", e, row, ok)
		}
	}
	want := `1:q:1.5 2::{"other":1} 3::{} 4:q:"x"`
	if strings.Join(got, " ") != want {
		t.Fatalf("rejected rows %q, want %q", strings.Join(got, " "), want)
	}
	if !strings.Contains(errs[0].Error(), "BigInt") || !strings.Contains(errs[1].Error(), "no field in common") {
		t.Fatalf("messages: %v / %v", errs[0], errs[1])
	}
	if tbl.Version() != 0 || len(dataFiles(t, dir)) != 1 {
		t.Fatalf("a rejected batch left version %d and %d data files", tbl.Version(), len(dataFiles(t, dir)))
	}
	// The caller sets the rejected rows aside and writes the rest.
	appendReport(t, tbl, []rows.Row{batch[0], batch[5]})
	assertRows(t, checkTable(t, dir), []map[string]any{{"q": int64(1)}, {"q": int64(2)}, {"q": int64(3)}})
}

func TestEnforceCountsDroppedFieldsByPath(t *testing.T) {
	dir := tableDir(t)
	tbl := enforcing(t, dir)
	appendReport(t, tbl, jsonRows(t, `{"id":1,"s":{"a":1},"xs":[{"b":1}]}`))
	r := appendReport(t, tbl, jsonRows(t,
		`{"id":2,"s":{"a":2,"c":"new"},"xs":[{"b":2,"z":true},{"z":false}],"top":1}`,
		`{"id":3,"top":{"k":2},"gone":null,"S":{"C":"case"}}`))
	want := "[{S.C 1 \"case\"} {s.c 1 \"new\"} {top 2 1} {xs[].z 2 true}]"
	if fmt.Sprint(r.Dropped) != want {
		t.Fatalf("dropped %v, want %s", r.Dropped, want)
	}
	snap := checkTable(t, dir)
	if snap.Schema.String() != "struct<id:long,s:struct<a:long>,xs:array<struct<b:long>>>" {
		t.Fatalf("schema changed: %s", snap.Schema)
	}
	assertRows(t, snap, []map[string]any{
		{"id": int64(1), "s": map[string]any{"a": int64(1)}, "xs": []any{map[string]any{"b": int64(1)}}},
		{"id": int64(2), "s": map[string]any{"a": int64(2)}, "xs": []any{map[string]any{"b": int64(2)}, map[string]any{}}},
		{"id": int64(3), "s": map[string]any{}},
	})
}

// TestEnforceFirstRecordWithoutFields: a first record that makes no column
// is rejected, and the next record makes the schema.
func TestEnforceFirstRecordWithoutFields(t *testing.T) {
	dir := tableDir(t)
	tbl := enforcing(t, dir)
	batch := jsonRows(t, `{}`, `{"n":1.5,"m":"x"}`, `{"n":2}`)
	_, err := tbl.AppendReport(context.Background(), batch)
	errs := rowErrors(t, err)
	if row, _ := delta.RowOf(errs[0]); len(errs) != 1 || row != 0 {
		t.Fatalf("errors %v, want row 0 only", errs)
	}
	if tbl.Version() != -1 {
		t.Fatalf("version %d after a rejected batch", tbl.Version())
	}
	appendReport(t, tbl, batch[1:])
	snap := checkTable(t, dir)
	if snap.Schema.String() != "struct<m:string,n:double>" {
		t.Fatalf("schema %s", snap.Schema)
	}
	assertRows(t, snap, []map[string]any{{"n": 1.5, "m": "x"}, {"n": 2.0}})
}

func TestEnforceDuplicateMembers(t *testing.T) {
	tbl := enforcing(t, tableDir(t))
	appendReport(t, tbl, jsonRows(t, `{"id":1}`))
	_, err := tbl.AppendReport(context.Background(), jsonRows(t, `{"id":2,"ID":3}`))
	var dup *delta.DuplicateFieldError
	if errs := rowErrors(t, err); len(errs) != 1 || !errors.As(errs[0], &dup) || dup.Column != "id" {
		t.Fatalf("error %v, want a duplicate of column id", err)
	}
}

// TestEnforceKeepsATableMadeByDeltaRS: a table created by another writer
// (delta-rs here, a notebook in Fabric) keeps its schema exactly; rows are
// projected onto it.
func TestEnforceKeepsATableMadeByDeltaRS(t *testing.T) {
	dir := tableDir(t)
	py, err := testclients.DeltaPython()
	if err != nil {
		t.Fatal(err)
	}
	testclients.Run(t, nil, py, "-c", `import os, sys, pyarrow as pa, deltalake
deltalake.write_deltalake(sys.argv[1], pa.table({"id": pa.array([1], pa.int64()), "score": pa.array([0.5]), "name": pa.array(["a"])}))
os._exit(0)  # deltalake's native threads may abort the interpreter's teardown`, dir)
	before := mustOpen(t, dir).Schema().String()
	if before != "struct<id:long,score:double,name:string>" {
		t.Fatalf("delta-rs made %s", before)
	}
	tbl := enforcing(t, dir)
	r := appendReport(t, tbl, jsonRows(t, `{"id":2,"score":3,"extra":"x"}`, `{"name":"c","id":3.0}`))
	if fmt.Sprint(r.Dropped) != `[{extra 1 "x"}]` {
		t.Fatalf("dropped %v", r.Dropped)
	}
	snap := checkTable(t, dir)
	if snap.Schema.String() != before {
		t.Fatalf("schema %s, was %s", snap.Schema, before)
	}
	assertRows(t, snap, []map[string]any{
		{"id": int64(1), "score": 0.5, "name": "a"},
		{"id": int64(2), "score": 3.0},
		{"id": int64(3), "name": "c"},
	})
}

// TestEvolveIsTheDefault: without WithSchemaMode, new fields still become
// columns and nothing is reported dropped.
func TestEvolveIsTheDefault(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir)
	r := appendReport(t, tbl, jsonRows(t, `{"id":1,"a":"x"}`, `{"id":2,"b":"y"}`))
	if len(r.Dropped) != 0 || tbl.Schema().String() != "struct<a:string,b:string,id:long>" {
		t.Fatalf("schema %s, dropped %v", tbl.Schema(), r.Dropped)
	}
}

// FuzzEnforce appends two arbitrary record values in one batch under
// schema enforcement, then a third alone: AppendReport never panics, fails
// only with a *RowsError whose rows are documented row errors, the rest
// of the batch then goes in, the table's schema never changes after its
// first commit, and the Go reader reads back every row written.
func FuzzEnforce(f *testing.F) {
	for _, seed := range [][3]string{
		{`{"id":1,"a":"x"}`, `{"id":2,"b":"y"}`, `{"id":1.5}`},
		{`{"q":1}`, `{"q":1.5}`, `{"q":true}`},
		{`{}`, `{"f":1.5,"s":{"a":[1]}}`, `{"f":2,"s":{"a":[1.5],"b":1}}`},
		{`{"A":1,"a":"s"}`, `{"":1}`, `{"a":{"x":1}}`},
		{`[1,2]`, "\xff\x00", `{"value":"x"}`},
		{`{"t":"2024-05-01T10:00:00Z"}`, `{"t":"2024-05-01"}`, `{"t":null,"u":1}`},
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]), []byte(seed[2]))
	}
	f.Fuzz(func(t *testing.T, v1, v2, v3 []byte) {
		tbl, err := delta.Open(tableDir(t), delta.WithoutFsync(), delta.WithSchemaMode(delta.SchemaEnforce))
		if err != nil {
			t.Fatal(err)
		}
		written := fuzzAppend(t, tbl, []rows.Row{rows.FromValue(v1), rows.FromValue(v2)})
		schema := tbl.Schema().String()
		written += fuzzAppend(t, tbl, []rows.Row{rows.FromValue(v3)})
		if tbl.Version() >= 0 && tbl.Schema().String() != schema && schema != "struct<>" {
			t.Fatalf("schema changed from %s to %s", schema, tbl.Schema())
		}
		if tbl.Version() < 0 {
			return
		}
		snap, err := delta.ReadTable(tbl.Dir())
		if err != nil || len(snap.Rows) != written {
			t.Fatalf("read back %v rows (%v), wrote %d", snap, err, written)
		}
	})
}

// fuzzAppend appends batch, and again without the rows a *RowsError
// names; it returns how many rows were written.
func fuzzAppend(t *testing.T, tbl *delta.Table, batch []rows.Row) int {
	_, err := tbl.AppendReport(context.Background(), batch)
	if err == nil {
		return len(batch)
	}
	var re *delta.RowsError
	if !errors.As(err, &re) {
		t.Fatalf("AppendReport: %v (%T)", err, err)
	}
	skip := map[int]bool{}
	for _, e := range re.Errs {
		var (
			conv  *delta.ConversionError
			dup   *delta.DuplicateFieldError
			limit *delta.RowLimitError
		)
		if !errors.As(e, &conv) && !errors.As(e, &dup) && !errors.As(e, &limit) {
			t.Fatalf("row error %v (%T) is not documented", e, e)
		}
		row, _ := delta.RowOf(e)
		skip[row] = true
	}
	var rest []rows.Row
	for i, r := range batch {
		if !skip[i] {
			rest = append(rest, r)
		}
	}
	if len(rest) == 0 {
		return 0
	}
	if _, err := tbl.AppendReport(context.Background(), rest); err != nil {
		t.Fatalf("the batch without its rejected rows: %v", err)
	}
	return len(rest)
}
