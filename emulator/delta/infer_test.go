package delta

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

func parseRows(t *testing.T, objects ...string) []rows.Row {
	t.Helper()
	out := make([]rows.Row, len(objects))
	for i, o := range objects {
		out[i] = rows.FromValue([]byte(o))
	}
	return out
}

func TestInferOneValue(t *testing.T) {
	cases := []struct{ value, want string }{
		{`"text"`, "string"},
		{`""`, "string"},
		{`42`, "long"},
		{`-42`, "long"},
		{`0`, "long"},
		{`9223372036854775807`, "long"},
		{`-9223372036854775808`, "long"},
		{`9223372036854775808`, "double"},
		{`-9223372036854775809`, "double"},
		{`2.5`, "double"},
		{`2.0`, "double"},
		{`1e3`, "double"},
		{`-1E-3`, "double"},
		{`1e400`, "string"},
		{`true`, "boolean"},
		{`false`, "boolean"},
		{`"2024-05-01T10:00:00Z"`, "timestamp"},
		{`"2024-05-01T10:00:00.123456789Z"`, "timestamp"},
		{`"2024-05-01T12:00:00+02:00"`, "timestamp"},
		{`"2024-05-01T12:00:00.5-07:30"`, "timestamp"},
		{`"2024-05-01"`, "string"},
		{`"2024-05-01 10:00:00Z"`, "string"},
		{`"2024-05-01T10:00:00"`, "string"},
		{`"2024-13-01T10:00:00Z"`, "string"},
		{`"2024-05-01T10:00:00+25:00"`, "string"},
		{`null`, "string"},
		{`{}`, "string"},
		{`{"a":1,"b":{"c":"x"}}`, "struct<a:long,b:struct<c:string>>"},
		{`{"z":1,"a":2}`, "struct<a:long,z:long>"},
		{`{"a":null}`, "struct<a:string>"},
		{`{"a":{}}`, "struct<a:string>"},
		{`[]`, "array<string>"},
		{`[null]`, "array<string>"},
		{`[1,2]`, "array<long>"},
		{`[1,2.5]`, "array<double>"},
		{`[1,null,3]`, "array<long>"},
		{`[1,"a"]`, "array<string>"},
		{`["2024-05-01T10:00:00Z","x"]`, "array<string>"},
		{`["2024-05-01T10:00:00Z",null]`, "array<timestamp>"},
		{`[true,1]`, "array<string>"},
		{`[{"a":1},{"b":"x"}]`, "array<struct<a:long,b:string>>"},
		{`[{"a":1},{"a":2.5}]`, "array<struct<a:double>>"},
		{`[{"a":1},2]`, "array<string>"},
		{`[[1],[2.5],[]]`, "array<array<double>>"},
		{`[[1],["x"]]`, "array<array<string>>"},
		{`[[1],2]`, "array<string>"},
		{`[{}]`, "array<string>"},
	}
	for _, c := range cases {
		s, err := InferSchema(parseRows(t, `{"f":`+c.value+`}`))
		if err != nil {
			t.Errorf("%s: %v", c.value, err)
			continue
		}
		if got := s.Fields[0].Type.String(); got != c.want {
			t.Errorf("%s: inferred %s, want %s", c.value, got, c.want)
		}
	}
}

func TestInferMergesAcrossRows(t *testing.T) {
	cases := []struct {
		values []string
		want   string
	}{
		{[]string{`1`, `2`}, "long"},
		{[]string{`1`, `2.5`}, "double"},
		{[]string{`2.5`, `1`}, "double"},
		{[]string{`null`, `1`}, "long"},
		{[]string{`1`, `null`}, "long"},
		{[]string{`1`, `"x"`}, "string"},
		{[]string{`"x"`, `1`}, "string"},
		{[]string{`1`, `true`}, "string"},
		{[]string{`"2024-05-01T10:00:00Z"`, `"2024-05-02T10:00:00Z"`}, "timestamp"},
		{[]string{`"2024-05-01T10:00:00Z"`, `"later"`}, "string"},
		{[]string{`"2024-05-01T10:00:00Z"`, `5`}, "string"},
		{[]string{`{"a":1}`, `{"b":true}`}, "struct<a:long,b:boolean>"},
		{[]string{`{"a":1}`, `{"a":"x"}`}, "struct<a:string>"},
		{[]string{`{"a":1}`, `5`}, "string"},
		{[]string{`5`, `{"a":1}`}, "string"},
		{[]string{`{"a":1}`, `[1]`}, "string"},
		{[]string{`{}`, `{"a":1}`}, "struct<a:long>"},
		{[]string{`[1]`, `[2.5]`}, "array<double>"},
		{[]string{`[]`, `[true]`}, "array<boolean>"},
		{[]string{`[1]`, `"x"`}, "string"},
		{[]string{`[{"a":1}]`, `[{"b":[1]}]`}, "array<struct<a:long,b:array<long>>>"},
	}
	for _, c := range cases {
		objs := make([]string, len(c.values))
		for i, v := range c.values {
			objs[i] = `{"f":` + v + `}`
		}
		s, err := InferSchema(parseRows(t, objs...))
		if err != nil {
			t.Errorf("%v: %v", c.values, err)
			continue
		}
		if got := s.Fields[0].Type.String(); got != c.want {
			t.Errorf("%v: inferred %s, want %s", c.values, got, c.want)
		}
	}
}

func TestInferGoValues(t *testing.T) {
	at := time.Date(2024, 5, 1, 10, 0, 0, 0, time.FixedZone("x", 3600))
	s, err := InferSchema([]rows.Row{{
		"i": 1, "i8": int8(1), "u32": uint32(7), "u64": uint64(math.MaxUint64), "u64s": uint64(5),
		"f32": float32(1.5), "f": 2.0, "b": true, "s": "x", "t": at,
		"row": rows.Row{"a": 1}, "m": map[string]any{"b": json.Number("2")}, "l": []any{1, 2.5},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := "struct<b:boolean,f:double,f32:double,i:long,i8:long,l:array<double>,m:struct<b:long>,row:struct<a:long>,s:string,t:timestamp,u32:long,u64:double,u64s:long>"
	if got := s.String(); got != want {
		t.Errorf("schema\n got  %s\n want %s", got, want)
	}
	if _, err := InferSchema([]rows.Row{{"bad": struct{}{}}}); err == nil || !strings.Contains(err.Error(), "struct {}") {
		t.Errorf("unsupported Go value: err = %v", err)
	}
}

func TestColumnOrderAndNames(t *testing.T) {
	table := Schema{Fields: []Field{{"zeta", Primitive(TypeLong)}, {"Alpha", StructOf(Field{"y", Primitive(TypeLong)})}}}
	ev, err := evolve(table, parseRows(t,
		`{"mid":1,"alpha":{"x":"new","Y":2},"a b":true,"ZETA":5}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "struct<zeta:long,Alpha:struct<y:long,x:string>,a_b:boolean,mid:long>"
	if got := ev.schema.String(); got != want || !ev.changed || !ev.aliases {
		t.Errorf("schema %s (changed %v aliases %v), want %s", got, ev.changed, ev.aliases, want)
	}
	ev, err = evolve(table, parseRows(t, `{"zeta":1,"Alpha":{"y":2}}`))
	if err != nil || ev.changed || ev.aliases {
		t.Errorf("exact names: %+v %v", ev, err)
	}
	for _, row := range []string{`{"zeta":1,"ZETA":2}`, `{"Alpha":{"y":1,"Y":2}}`, `{"new":1,"NEW":2}`, `{"a b":1,"a_b":2}`, `{"a=b":1,"a(b":2}`} {
		_, err := evolve(table, parseRows(t, row))
		var de *DuplicateFieldError
		if !errors.As(err, &de) {
			t.Errorf("%s: err = %v, want *DuplicateFieldError", row, err)
		}
	}
	if got := columnName(" ,;{}()="); got != "________" {
		t.Errorf("columnName = %q", got)
	}
}

func TestConflictPaths(t *testing.T) {
	table, err := InferSchema(parseRows(t, `{"o":{"items":[{"qty":1,"tags":["a"]}]},"m":[[1]]}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ row, field, tableType, eventType string }{
		{`{"o":{"items":[{"qty":"x"}]}}`, "o.items[].qty", "long", "string"},
		{`{"o":{"items":[{"tags":[1,{"a":1}]}]}}`, "o.items[].tags", "array<string>", ""},
		{`{"o":{"items":{"qty":1}}}`, "o.items", "array<struct<qty:long,tags:array<string>>>", "struct<qty:long>"},
		{`{"m":[[1],[true]]}`, "m[][]", "long", "boolean"},
		{`{"m":[1]}`, "m[]", "array<long>", "long"},
	}
	for _, c := range cases {
		_, err := evolve(table, parseRows(t, `{}`, c.row))
		if c.eventType == "" { // strings take anything: no conflict
			if err != nil {
				t.Errorf("%s: %v", c.row, err)
			}
			continue
		}
		var ce *SchemaConflictError
		if !errors.As(err, &ce) || ce.Field != c.field || ce.TableType != c.tableType || ce.EventType != c.eventType || ce.Row != 1 {
			t.Errorf("%s: err = %#v, want field %s table %s event %s row 1", c.row, err, c.field, c.tableType, c.eventType)
		}
	}
}

func TestForeignTypesConflict(t *testing.T) {
	table := Schema{Fields: []Field{{"d", Primitive("decimal(10,2)")}}}
	_, err := evolve(table, parseRows(t, `{"d":1.5}`))
	var ce *SchemaConflictError
	if !errors.As(err, &ce) || ce.TableType != "decimal(10,2)" {
		t.Errorf("err = %v", err)
	}
	if _, err := evolve(table, parseRows(t, `{"d":null,"x":1}`)); err != nil {
		t.Errorf("nulls and new columns beside a foreign type: %v", err)
	}
}

func TestLosslessConversions(t *testing.T) {
	ints := map[string]any{
		"5": int64(5), "2.0": int64(2), "1e3": int64(1000), "-1.5e1": int64(-15), "-1.25e1": nil, "1.5": nil,
		"9223372036854775807": int64(math.MaxInt64), "9223372036854775808": nil, "9.223372036854775807e18": int64(math.MaxInt64),
		"1.0000000000000000001": nil, "1e1000000000": nil, "1e-1000000000": nil, "-0.0": int64(0),
	}
	for lit, want := range ints {
		got, ok := rows.Int64(json.Number(lit))
		if (want == nil) == ok || (ok && got != want.(int64)) {
			t.Errorf("rows.Int64(%s) = %d %v, want %v", lit, got, ok, want)
		}
	}
	if _, ok := rows.Int64(2.5); ok {
		t.Error("rows.Int64(2.5) succeeded")
	}
	if v, ok := rows.Int64(float64(1 << 62)); !ok || v != 1<<62 {
		t.Errorf("rows.Int64(2^62) = %d %v", v, ok)
	}
	if _, ok := toFloat64(json.Number("1e400")); ok {
		t.Error("toFloat64(1e400) succeeded")
	}
	if _, ok := toFloat64("1"); ok {
		t.Error(`toFloat64("1") succeeded`)
	}
	us, ok := toMicros("1969-12-31T23:59:59.9999999Z")
	if !ok || us != -1 {
		t.Errorf("toMicros before the epoch = %d %v, want -1 (truncated toward the past)", us, ok)
	}
	texts := map[string]any{
		"x": "x", "5": json.Number("5"), "true": true, "1.5": 1.5, "7": 7,
		`{"a":[1,"<&>"]}`: map[string]any{"a": []any{json.Number("1"), "<&>"}}, "[]": []any{},
		"2024-05-01T08:00:00Z": time.Date(2024, 5, 1, 10, 0, 0, 0, time.FixedZone("", 7200)),
		"a\uFFFDb":             "a\xffb",
	}
	for want, v := range texts {
		if got := toText(v); got != want {
			t.Errorf("toText(%#v) = %q, want %q", v, got, want)
		}
	}
}

func TestStatsBounds(t *testing.T) {
	s := &columnStats{kind: kTimestamp}
	for _, us := range []int64{-1500, 1_000_001, 5_000} {
		s.int(us)
	}
	lo, _ := s.appendBound(nil, true)
	hi, _ := s.appendBound(nil, false)
	if string(lo) != `"1969-12-31T23:59:59.998Z"` || string(hi) != `"1970-01-01T00:00:01.001Z"` {
		t.Errorf("timestamp bounds %s %s", lo, hi)
	}
	s = &columnStats{kind: kString}
	long := strings.Repeat("é", 33)
	s.str(long)
	s.str("b")
	lo, okLo := s.appendBound(nil, true)
	_, okHi := s.appendBound(nil, false)
	if !okLo || string(lo) != `"b"` || okHi {
		t.Errorf("string bounds %s %v %v", lo, okLo, okHi)
	}
	s = &columnStats{kind: kString}
	s.str(long)
	lo, _ = s.appendBound(nil, true)
	if string(lo) != `"`+strings.Repeat("é", 32)+`"` {
		t.Errorf("long string minimum %s", lo)
	}
	s = &columnStats{kind: kDouble}
	s.float(1)
	s.float(math.NaN())
	if _, ok := s.appendBound(nil, true); ok {
		t.Error("a column with NaN has bounds")
	}
	s = &columnStats{kind: kString}
	s.str(`<"quote">`)
	if lo, _ := s.appendBound(nil, true); string(lo) != `"<\"quote\">"` {
		t.Errorf("string bound %s", lo)
	}
}

func TestSchemaJSONRoundTrips(t *testing.T) {
	s := Schema{Fields: []Field{
		{"a", Primitive(TypeLong)},
		{"n\"ame", StructOf(Field{"x", ArrayOf(StructOf(Field{"y", Primitive(TypeTimestamp)}))})},
		{"d", Primitive("decimal(10,2)")},
	}}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Schema
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.String() != s.String() {
		t.Errorf("round trip %s, want %s", back, s)
	}
	if err := json.Unmarshal([]byte(`{"type":"struct","fields":[{"name":"m","type":{"type":"map","keyType":"string","valueType":"long"}}]}`), &back); err == nil {
		t.Error("a map type was accepted")
	}
}
