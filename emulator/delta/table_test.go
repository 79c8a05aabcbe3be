package delta_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// jsonRows turns JSON objects into rows by the shared rows rule.
func jsonRows(t testing.TB, objects ...string) []rows.Row {
	t.Helper()
	out := make([]rows.Row, len(objects))
	for i, o := range objects {
		out[i] = rows.FromValue([]byte(o))
		if _, ok := out[i][rows.ValueField]; ok && !strings.Contains(o, `"value"`) {
			t.Fatalf("test row %d is not a JSON object: %s", i, o)
		}
	}
	return out
}

func tableDir(t testing.TB) string { return filepath.Join(t.TempDir(), "table") }

func mustOpen(t testing.TB, dir string, opts ...delta.Option) *delta.Table {
	t.Helper()
	tbl, err := delta.Open(dir, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return tbl
}

func mustAppend(t testing.TB, tbl *delta.Table, batch []rows.Row, txns ...delta.Txn) int64 {
	t.Helper()
	v, err := tbl.Append(context.Background(), batch, txns...)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return v
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// assertRows compares rows, in order, after normalising by the schema.
func assertRows(t testing.TB, snap *delta.Snapshot, want []map[string]any) {
	t.Helper()
	got, exp := canonList(t, snap.Rows, snap.Schema), canonList(t, want, snap.Schema)
	if !equalStrings(got, exp) {
		t.Errorf("rows differ:\n%s", diffRows(got, exp))
	}
}

// dataFiles lists the Parquet files in a table root.
func dataFiles(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEveryTypeRoundTrips(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir)
	if v := tbl.Version(); v != -1 {
		t.Fatalf("Version of a new table = %d, want -1", v)
	}
	v := mustAppend(t, tbl, jsonRows(t,
		`{"s":"text","l":42,"d":2.5,"e":1e3,"big":18446744073709551616,"b":true,
		  "ts":"2024-05-01T10:00:00.123456789Z","tsoff":"2024-05-01T12:00:00+02:00",
		  "obj":{"a":1,"b":{"c":"deep"}},"longs":[1,2,3],"nums":[1,2.5],
		  "objs":[{"k":"x","v":1},{"k":"y"}],"grid":[[1],[2,3]],"mixed":[1,"a",true,{"o":1},null],
		  "none":[],"nul":null,"emptyobj":{},"n":1,"x":1,"when":"2024-05-01T10:00:00Z","o":{"a":1},"o2":{"a":1}}`,
		`{"s":"more","l":-7,"d":-0.5,"n":2.5,"x":"one","when":"later","o":{"b":"z"},"o2":5,
		  "objs":[],"grid":[[],null,[4]],"longs":null}`,
	))
	if v != 0 {
		t.Fatalf("first Append = version %d, want 0", v)
	}
	wantSchema := "struct<b:boolean,big:double,d:double,e:double,emptyobj:string,grid:array<array<long>>," +
		"l:long,longs:array<long>,mixed:array<string>,n:double,none:array<string>,nul:string,nums:array<double>," +
		"o:struct<a:long,b:string>,o2:string,obj:struct<a:long,b:struct<c:string>>,objs:array<struct<k:string,v:long>>," +
		"s:string,ts:timestamp,tsoff:timestamp,when:string,x:string>"
	if got := tbl.Schema().String(); got != wantSchema {
		t.Errorf("schema\n got  %s\n want %s", got, wantSchema)
	}
	snap := checkTable(t, dir)
	assertRows(t, snap, []map[string]any{
		{
			"b": true, "big": 18446744073709551616.0, "d": 2.5, "e": 1000.0, "emptyobj": "{}",
			"grid": []any{[]any{int64(1)}, []any{int64(2), int64(3)}}, "l": int64(42),
			"longs": []any{int64(1), int64(2), int64(3)}, "mixed": []any{"1", "a", "true", `{"o":1}`, nil},
			"n": 1.0, "none": []any{}, "nul": nil, "nums": []any{1.0, 2.5},
			"o": map[string]any{"a": int64(1), "b": nil}, "o2": `{"a":1}`,
			"obj":  map[string]any{"a": int64(1), "b": map[string]any{"c": "deep"}},
			"objs": []any{map[string]any{"k": "x", "v": int64(1)}, map[string]any{"k": "y", "v": nil}},
			"s":    "text", "ts": ts("2024-05-01T10:00:00.123456Z"), "tsoff": ts("2024-05-01T10:00:00Z"),
			"when": "2024-05-01T10:00:00Z", "x": "1",
		},
		{
			"b": nil, "big": nil, "d": -0.5, "e": nil, "emptyobj": nil,
			"grid": []any{[]any{}, nil, []any{int64(4)}}, "l": int64(-7), "longs": nil, "mixed": nil,
			"n": 2.5, "none": nil, "nul": nil, "nums": nil, "o": map[string]any{"a": nil, "b": "z"}, "o2": "5",
			"obj": nil, "objs": []any{}, "s": "more", "ts": nil, "tsoff": nil, "when": "later", "x": "one",
		},
	})
	if c := snap.Commits[0]; c.Operation != "WRITE" || c.AddedRows != 2 || c.AddedFiles != 1 || !c.SchemaChanged || c.EngineInfo != "fabrictest" {
		t.Errorf("commit 0 = %+v", c)
	}
}

func TestNullsOfEveryType(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir)
	mustAppend(t, tbl, jsonRows(t,
		`{"s":"a","l":1,"d":1.5,"b":false,"ts":"2024-01-01T00:00:00Z","st":{"x":1,"y":"q"},"arr":[1],"sarr":[{"k":1}]}`))
	mustAppend(t, tbl, jsonRows(t,
		`{"s":null,"l":null,"d":null,"b":null,"ts":null,"st":null,"arr":null,"sarr":null}`,
		`{}`,
		`{"st":{"x":null,"y":null},"arr":[null,null],"sarr":[null,{"k":null},{}]}`,
	))
	snap := checkTable(t, dir)
	nulls := map[string]any{"s": nil, "l": nil, "d": nil, "b": nil, "ts": nil, "st": nil, "arr": nil, "sarr": nil}
	assertRows(t, snap, []map[string]any{
		{"s": "a", "l": int64(1), "d": 1.5, "b": false, "ts": ts("2024-01-01T00:00:00Z"),
			"st": map[string]any{"x": int64(1), "y": "q"}, "arr": []any{int64(1)}, "sarr": []any{map[string]any{"k": int64(1)}}},
		nulls,
		nulls,
		{"s": nil, "l": nil, "d": nil, "b": nil, "ts": nil, "st": map[string]any{"x": nil, "y": nil},
			"arr": []any{nil, nil}, "sarr": []any{nil, map[string]any{"k": nil}, map[string]any{"k": nil}}},
	})
	if snap.Commits[1].SchemaChanged {
		t.Errorf("an all-null batch changed the schema")
	}
}

func TestNewFieldsBecomeNullableColumns(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir)
	steps := []struct {
		row    string
		schema string
	}{
		{`{"id":1,"s":{"x":1}}`, "struct<id:long,s:struct<x:long>>"},
		{`{"id":2,"zeta":true,"alpha":"a"}`, "struct<id:long,s:struct<x:long>,alpha:string,zeta:boolean>"},
		{`{"id":3,"s":{"x":2,"w":"new"},"list":[{"p":1}]}`, "struct<id:long,s:struct<x:long,w:string>,alpha:string,zeta:boolean,list:array<struct<p:long>>>"},
		{`{"id":4,"list":[{"p":2,"q":"n"}]}`, "struct<id:long,s:struct<x:long,w:string>,alpha:string,zeta:boolean,list:array<struct<p:long,q:string>>>"},
		{`{"id":5}`, "struct<id:long,s:struct<x:long,w:string>,alpha:string,zeta:boolean,list:array<struct<p:long,q:string>>>"},
	}
	for i, st := range steps {
		if v := mustAppend(t, tbl, jsonRows(t, st.row)); v != int64(i) {
			t.Fatalf("step %d: version %d", i, v)
		}
		if got := tbl.Schema().String(); got != st.schema {
			t.Fatalf("step %d: schema\n got  %s\n want %s", i, got, st.schema)
		}
	}
	snap := checkTable(t, dir)
	for i, c := range snap.Commits {
		if want := i != 4; c.SchemaChanged != want {
			t.Errorf("commit %d: SchemaChanged = %v, want %v", i, c.SchemaChanged, want)
		}
	}
	assertRows(t, snap, []map[string]any{
		{"id": int64(1), "s": map[string]any{"x": int64(1), "w": nil}, "alpha": nil, "zeta": nil, "list": nil},
		{"id": int64(2), "s": nil, "alpha": "a", "zeta": true, "list": nil},
		{"id": int64(3), "s": map[string]any{"x": int64(2), "w": "new"}, "alpha": nil, "zeta": nil,
			"list": []any{map[string]any{"p": int64(1), "q": nil}}},
		{"id": int64(4), "s": nil, "alpha": nil, "zeta": nil, "list": []any{map[string]any{"p": int64(2), "q": "n"}}},
		{"id": int64(5), "s": nil, "alpha": nil, "zeta": nil, "list": nil},
	})
	// The table id never changes with the schema.
	tbl2 := mustOpen(t, dir)
	if tbl2.Schema().String() != steps[4].schema || tbl2.Version() != 4 {
		t.Errorf("reopened table: version %d schema %s", tbl2.Version(), tbl2.Schema())
	}
}

func TestTypeConflictsAreRejectedAndWriteNothing(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir)
	mustAppend(t, tbl, jsonRows(t,
		`{"id":1,"price":2.5,"name":"a","ts":"2024-01-01T00:00:00Z","ok":true,"s":{"a":1},"arr":[1],"items":[{"qty":1}]}`))
	files := len(dataFiles(t, dir))

	cases := []struct {
		row                     string
		field, table, eventType string
	}{
		{`{"id":"seven"}`, "id", "long", "string"},
		{`{"id":1.5}`, "id", "long", "double"},
		{`{"id":9223372036854775808}`, "id", "long", "double"},
		{`{"id":true}`, "id", "long", "boolean"},
		{`{"price":"cheap"}`, "price", "double", "string"},
		{`{"ok":"yes"}`, "ok", "boolean", "string"},
		{`{"ok":1}`, "ok", "boolean", "long"},
		{`{"ts":"yesterday"}`, "ts", "timestamp", "string"},
		{`{"ts":1704067200}`, "ts", "timestamp", "long"},
		{`{"s":5}`, "s", "struct<a:long>", "long"},
		{`{"s":{"a":"x"}}`, "s.a", "long", "string"},
		{`{"arr":{"a":1}}`, "arr", "array<long>", "struct<a:long>"},
		{`{"arr":[1,"two"]}`, "arr[]", "long", "string"},
		{`{"items":[{"qty":1},{"qty":[2]}]}`, "items[].qty", "long", "array<long>"},
	}
	for _, c := range cases {
		batch := jsonRows(t, `{"id":100}`, `{"id":101}`, c.row)
		v, err := tbl.Append(context.Background(), batch)
		var ce *delta.SchemaConflictError
		if !errors.As(err, &ce) {
			t.Errorf("%s: err = %v, want *SchemaConflictError", c.row, err)
			continue
		}
		if ce.Field != c.field || ce.TableType != c.table || ce.EventType != c.eventType || ce.Row != 2 {
			t.Errorf("%s: conflict %+v, want field %s table %s event %s row 2", c.row, *ce, c.field, c.table, c.eventType)
		}
		for _, part := range []string{c.field, c.table, c.eventType} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("%s: message %q does not name %q", c.row, err, part)
			}
		}
		if v != 0 || tbl.Version() != 0 {
			t.Errorf("%s: version %d after a rejected append", c.row, v)
		}
	}
	if n := len(dataFiles(t, dir)); n != files {
		t.Errorf("rejected appends left %d data files, want %d", n, files)
	}

	// Values that fit losslessly are coerced.
	mustAppend(t, tbl, jsonRows(t,
		`{"id":2.0,"price":3,"name":5,"ts":"2024-01-01T02:00:00+02:00","s":{"a":1e2},"arr":[3.0]}`,
		`{"id":1e3,"price":-1,"name":{"k":[1,true]},"ok":false}`,
		`{"name":true}`,
	))
	snap := checkTable(t, dir)
	assertRows(t, snap, []map[string]any{
		{"id": int64(1), "price": 2.5, "name": "a", "ts": ts("2024-01-01T00:00:00Z"), "ok": true,
			"s": map[string]any{"a": int64(1)}, "arr": []any{int64(1)}, "items": []any{map[string]any{"qty": int64(1)}}},
		{"id": int64(2), "price": 3.0, "name": "5", "ts": ts("2024-01-01T00:00:00Z"), "ok": nil,
			"s": map[string]any{"a": int64(100)}, "arr": []any{int64(3)}, "items": nil},
		{"id": int64(1000), "price": -1.0, "name": `{"k":[1,true]}`, "ts": nil, "ok": false, "s": nil, "arr": nil, "items": nil},
		{"id": nil, "price": nil, "name": "true", "ts": nil, "ok": nil, "s": nil, "arr": nil, "items": nil},
	})
	if len(snap.Commits) != 2 || snap.Commits[1].SchemaChanged {
		t.Errorf("commits %+v", snap.Commits)
	}
}

func TestColumnNamesAndUnicode(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir)
	long := strings.Repeat("ü", 40)
	mustAppend(t, tbl, jsonRows(t,
		`{"Id":1,"名前":"山田 太郎","prix €":9.5,"a b,c;d{e}f(g)h=i":"weird","emoji😀":"✓ 😀 👩‍👩‍👧","rtl":"שלום עולם","nul":"a\u0000b","long":"`+long+`"}`,
		`{"id":2,"名前":"Ünïcödé","emoji😀":"é (e + \u0301)","long":"`+strings.Repeat("a", 33)+`"}`,
	))
	want := "struct<Id:long,a_b_c_d_e_f_g_h_i:string,emoji😀:string,long:string,nul:string,prix_€:double,rtl:string,名前:string>"
	if got := tbl.Schema().String(); got != want {
		t.Errorf("schema\n got  %s\n want %s", got, want)
	}
	// Names differing only in case go to one column; two of them in one row
	// are rejected.
	_, err := tbl.Append(context.Background(), jsonRows(t, `{"ID":3}`, `{"id":4,"iD":5}`))
	var de *delta.DuplicateFieldError
	if !errors.As(err, &de) || de.Column != "Id" || de.Row != 1 {
		t.Fatalf("err = %v, want *DuplicateFieldError for column Id in row 1", err)
	}
	_, err = tbl.Append(context.Background(), jsonRows(t, `{"s":{"x y":1,"x_y":2}}`))
	if !errors.As(err, &de) || de.Column != "x_y" || !strings.HasPrefix(de.Field, "s.") {
		t.Fatalf("err = %v, want *DuplicateFieldError for s.x_y", err)
	}
	mustAppend(t, tbl, jsonRows(t, `{"ID":3,"prix €":1}`))
	snap := checkTable(t, dir)
	assertRows(t, snap, []map[string]any{
		{"Id": int64(1), "a_b_c_d_e_f_g_h_i": "weird", "emoji😀": "✓ 😀 👩‍👩‍👧", "long": long, "nul": "a\x00b",
			"prix_€": 9.5, "rtl": "שלום עולם", "名前": "山田 太郎"},
		{"Id": int64(2), "a_b_c_d_e_f_g_h_i": nil, "emoji😀": "é (e + \u0301)", "long": strings.Repeat("a", 33), "nul": nil,
			"prix_€": nil, "rtl": nil, "名前": "Ünïcödé"},
		{"Id": int64(3), "a_b_c_d_e_f_g_h_i": nil, "emoji😀": nil, "long": nil, "nul": nil,
			"prix_€": 1.0, "rtl": nil, "名前": nil},
	})
}

func TestTenThousandRows(t *testing.T) {
	dir := tableDir(t)
	tbl := mustOpen(t, dir)
	batch := make([]rows.Row, 10000)
	want := make([]map[string]any, len(batch))
	base := ts("2024-05-01T00:00:00Z")
	for i := range batch {
		at := base.Add(time.Duration(i) * 1500 * time.Microsecond)
		batch[i] = rows.Row{"n": int64(i), "device": "dev-" + string(rune('a'+i%26)), "temp": float64(i%400) / 10,
			"at": at.Format(time.RFC3339Nano), "ok": i%3 == 0}
		want[i] = map[string]any{"n": int64(i), "device": "dev-" + string(rune('a'+i%26)), "temp": float64(i%400) / 10,
			"at": at, "ok": i%3 == 0}
	}
	if v := mustAppend(t, tbl, batch); v != 0 {
		t.Fatalf("version %d", v)
	}
	snap := checkTable(t, dir)
	if len(snap.Rows) != 10000 || snap.Commits[0].AddedRows != 10000 {
		t.Fatalf("%d rows, commit says %d", len(snap.Rows), snap.Commits[0].AddedRows)
	}
	assertRows(t, snap, want)
}
