package eventhouse

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestValueType(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{json.Number("42"), typeLong},
		{json.Number("-9223372036854775808"), typeLong},
		{json.Number("9223372036854775808"), typeReal},
		{json.Number("1.5"), typeReal},
		{json.Number("1e3"), typeReal},
		{true, typeBool},
		{"2024-01-02T03:04:05Z", typeString},
		{"x", typeString},
		{int32(1), typeLong},
		{uint64(math.MaxUint64), typeReal},
		{3.0, typeReal},
		{time.Now(), typeDateTime},
		{map[string]any{"k": 1}, typeDynamic},
		{[]any{1, "a"}, typeDynamic},
		{[]string{"a"}, typeDynamic},
	} {
		if got, ok := valueType(c.v); !ok || got != c.want {
			t.Errorf("valueType(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
	if _, ok := valueType(nil); ok {
		t.Error("null has a type")
	}
	for _, c := range [][3]string{
		{"", typeLong, typeLong}, {typeLong, typeReal, typeReal}, {typeReal, typeLong, typeReal},
		{typeLong, typeString, typeDynamic}, {typeBool, typeLong, typeDynamic}, {typeString, typeString, typeString},
	} {
		if got := mergeTypes(c[0], c[1]); got != c[2] {
			t.Errorf("mergeTypes(%s, %s) = %s, want %s", c[0], c[1], got, c[2])
		}
	}
}

func TestEncodeValue(t *testing.T) {
	ts := time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", 3600))
	type out struct {
		text        string
		quote, fits bool
	}
	for _, c := range []struct {
		typ  string
		v    any
		want out
	}{
		{typeString, nil, out{"", false, true}},
		{typeString, "a,b", out{"a,b", true, true}},
		{typeString, json.Number("1.50"), out{"1.50", true, true}},
		{typeString, true, out{"true", true, true}},
		{typeString, map[string]any{"k": "<v>"}, out{`{"k":"<v>"}`, true, true}},
		{typeLong, json.Number("7"), out{"7", false, true}},
		{typeLong, json.Number("3.0"), out{"3", false, true}},
		{typeLong, json.Number("1e2"), out{"100", false, true}},
		{typeLong, json.Number("1.5"), out{"", false, false}},
		{typeLong, json.Number("1e30"), out{"", false, false}},
		{typeLong, "7", out{"", false, false}},
		{typeInt, json.Number("3000000000"), out{"", false, false}},
		{typeInt, int64(-3), out{"-3", false, true}},
		{typeReal, json.Number("7"), out{"7", false, true}},
		{typeReal, json.Number("0.1"), out{"0.1", false, true}},
		{typeReal, math.NaN(), out{"", false, true}},
		{typeReal, "x", out{"", false, false}},
		{typeBool, false, out{"false", false, true}},
		{typeBool, "false", out{"", false, false}},
		{typeDateTime, ts, out{"2024-01-02T02:04:05.1234567Z", false, true}},
		{typeDateTime, "2024-01-02T03:04:05+01:00", out{"2024-01-02T02:04:05.0000000Z", false, true}},
		{typeDateTime, "yesterday", out{"", false, false}},
		{typeDynamic, "a \"q\"", out{`"a \"q\""`, true, true}},
		{typeDynamic, json.Number("1.50"), out{"1.50", true, true}},
		{typeDynamic, []any{json.Number("1"), "x"}, out{`[1,"x"]`, true, true}},
		{typeGUID, "123E27DE-1E4E-49D9-B579-FE0B331D3642", out{"123e27de-1e4e-49d9-b579-fe0b331d3642", false, true}},
		{typeGUID, "nope", out{"", false, false}},
		{typeTimespan, 90 * time.Minute, out{"01:30:00.0000000", false, true}},
		{typeTimespan, "1.02:03:04.5", out{"1.02:03:04.5", false, true}},
		{typeTimespan, "soon", out{"", false, false}},
		{typeDecimal, json.Number("2.00000000000001"), out{"2.00000000000001", false, true}},
		{typeDecimal, "12.5", out{"12.5", false, true}},
		{typeDecimal, "twelve", out{"", false, false}},
	} {
		text, quote, ok := encodeValue(c.typ, c.v)
		if got := (out{text, quote, ok}); got != c.want {
			t.Errorf("encodeValue(%s, %#v) = %+v, want %+v", c.typ, c.v, got, c.want)
		}
	}
}

func TestWriteField(t *testing.T) {
	for _, c := range []struct {
		in    string
		quote bool
		want  string
	}{
		{"plain", false, "plain"},
		{"", true, `""`},
		{"a,b", false, `"a,b"`},
		{`say "hi"`, false, `"say ""hi"""`},
		{"two\nlines", false, "\"two\nlines\""},
		{"cr\r", false, "\"cr\r\""},
	} {
		var b strings.Builder
		writeField(&b, c.in, c.quote)
		if b.String() != c.want {
			t.Errorf("writeField(%q, %v) = %q, want %q", c.in, c.quote, b.String(), c.want)
		}
	}
}

func TestSplitIsDeterministic(t *testing.T) {
	var batch []mappedRow
	for i := range 1000 {
		batch = append(batch, mappedRow{"i": json.Number("1"), "s": strings.Repeat("x", i%50), "n": nil})
	}
	a, b := split(batch, 4096), split(batch, 4096)
	if len(a) < 2 || !reflect.DeepEqual(a, b) {
		t.Fatalf("split into %d parts, not deterministic or not split", len(a))
	}
	total := 0
	for _, p := range a {
		total += len(p)
		size := 0
		for _, r := range p {
			size += rowCost(r)
		}
		if size > 4096 && len(p) > 1 {
			t.Fatalf("part of %d bytes", size)
		}
	}
	if total != 1000 {
		t.Fatalf("rows after split %d", total)
	}
	if parts := split(batch[:1], 1); len(parts) != 1 {
		t.Fatalf("one oversized row: %d parts", len(parts))
	}
}

func TestEngineErrorMessage(t *testing.T) {
	csl := ".ingest inline into table ['T'] <|\n" + strings.Repeat("secret,row\n", 100)
	e := engineError("ingest inline", "db", "T", csl, errors.New("Op(OpMgmt): could not do it, With query: "+csl))
	if strings.Contains(e.Error(), "secret") || !strings.Contains(e.Error(), "<command>") || !e.Retryable() {
		t.Fatalf("error = %s", e)
	}
	if got := responseBody(errors.New("error from Kusto endpoint, With query: "+csl+"(404 Not Found):\n404 page not found"), csl); got != "404 page not found" {
		t.Fatalf("responseBody = %q", got)
	}
}
