package kustofake

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseCSV(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want [][]string
	}{
		{"empty", "", nil},
		{"one", "a,1", [][]string{{"a", "1"}}},
		{"final newline", "a,1\n", [][]string{{"a", "1"}}},
		{"crlf", "a,1\r\nb,2\r\n", [][]string{{"a", "1"}, {"b", "2"}}},
		{"empty fields", ",,\n", [][]string{{"", "", ""}}},
		{"trailing comma at end", "a,", [][]string{{"a", ""}}},
		{"quoted comma", `"a,b",c`, [][]string{{"a,b", "c"}}},
		{"doubled quote", `"say ""hi""",x`, [][]string{{`say "hi"`, "x"}}},
		{"quoted newline", "\"line1\nline2\",2\nnext,3", [][]string{{"line1\nline2", "2"}, {"next", "3"}}},
		{"quoted crlf", "\"a\r\nb\"\r\n", [][]string{{"a\r\nb"}}},
		{"quoted empty", `"",x`, [][]string{{"", "x"}}},
		{"unicode", "héllo,日本語,🙂\n", [][]string{{"héllo", "日本語", "🙂"}}},
		{"blank line is a record", "a\n\nb\n", [][]string{{"a"}, {""}, {"b"}}},
		{"lone cr is data", "a\rb,c", [][]string{{"a\rb", "c"}}},
		{"json in quotes", `"{""k"":[1,2]}"`, [][]string{{`{"k":[1,2]}`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseCSV(c.in)
			if err != nil {
				t.Fatalf("parseCSV(%q): %v", c.in, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("parseCSV(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
	for _, bad := range []string{`"open`, `"a"b,c`, `a"b,c`} {
		if _, err := parseCSV(bad); err == nil {
			t.Errorf("parseCSV(%q) accepted malformed CSV", bad)
		}
	}
}

func TestLexNames(t *testing.T) {
	cases := map[string]string{
		`['kind']`:        "kind",
		`["kind"]`:        "kind",
		`['it\'s']`:       "it's",
		`["a\"b"]`:        `a"b`,
		`['back\\slash']`: `back\slash`,
		`[@'x''y']`:       "x'y",
		`['\u00e9']`:      "é",
		`['my col-1.x']`:  "my col-1.x",
	}
	for src, want := range cases {
		lx := lexer{src: src}
		tok, err := lx.next()
		if err != nil {
			t.Fatalf("lex %s: %v", src, err)
		}
		if tok.kind != tokName || tok.val != want {
			t.Errorf("lex %s = kind %d %q, want name %q", src, tok.kind, tok.val, want)
		}
	}
	for _, bad := range []string{`['open`, `['x'`, `['\q']`, "['a\nb']"} {
		lx := lexer{src: bad}
		if _, err := lx.next(); err == nil {
			t.Errorf("lex %q: accepted", bad)
		} else if !strings.Contains(err.Error(), "SYN0002") {
			t.Errorf("lex %q: %v, want SYN0002", bad, err)
		}
	}
}

func TestSyntaxErrorPosition(t *testing.T) {
	// kustainer answered this command with [line:position=1:43], 43 being
	// the offset of kind.
	_, err := parseCommand(".create table PipelineEvents (ts:datetime, kind:string)")
	if err == nil || !strings.Contains(err.detail, "SYN0002: A recognition error occurred. [line:position=1:43]") {
		t.Fatalf("got %v", err)
	}
	if err.inner == nil || err.inner.Code != "SYN0002" || err.inner.Token != "kind" {
		t.Fatalf("innererror = %+v", err.inner)
	}
	_, err = parseCommand(".create-merge table T (\n  a:string,\n  or:string)")
	if err == nil || !strings.Contains(err.detail, "[line:position=3:2]") {
		t.Fatalf("multi-line position: %v", err)
	}
}

func TestParseField(t *testing.T) {
	ts := time.Date(2024, 1, 2, 3, 4, 5, 123456700, time.UTC)
	cases := []struct {
		typ, in string
		want    any
	}{
		{TypeString, "", ""},
		{TypeString, " x ", " x "},
		{TypeLong, "", nil},
		{TypeLong, "42", int64(42)},
		{TypeLong, "4.2", nil},
		{TypeLong, "abc", nil},
		{TypeInt, "3000000000", nil},
		{TypeInt, "-7", int64(-7)},
		{TypeReal, "1.5", 1.5},
		{TypeReal, "x", nil},
		{TypeBool, "true", true},
		{TypeBool, "False", false},
		{TypeBool, "yes", nil},
		{TypeDateTime, "2024-01-02T03:04:05.1234567Z", ts},
		{TypeDateTime, "not a date", nil},
		{TypeDynamic, `{"k": [1, 2]}`, json.RawMessage(`{"k":[1,2]}`)},
		{TypeDynamic, `plain`, json.RawMessage(`"plain"`)},
		{TypeGUID, "123E27DE-1E4E-49D9-B579-FE0B331D3642", "123e27de-1e4e-49d9-b579-fe0b331d3642"},
		{TypeGUID, "nope", nil},
		{TypeTimespan, "1.02:03:04.5000000", 26*time.Hour + 3*time.Minute + 4500*time.Millisecond},
		{TypeTimespan, "-00:00:01", -time.Second},
		{TypeDecimal, "2.00000000000001", "2.00000000000001"},
		{TypeDecimal, "1,5", nil},
	}
	for _, c := range cases {
		if got := parseField(c.typ, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseField(%s, %q) = %#v, want %#v", c.typ, c.in, got, c.want)
		}
	}
	if got := formatTimespan(26*time.Hour + 3*time.Minute + 4500*time.Millisecond); got != "1.02:03:04.5000000" {
		t.Errorf("formatTimespan = %q", got)
	}
}
