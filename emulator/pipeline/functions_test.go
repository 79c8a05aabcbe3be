package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// fail marks a call that must give null and count a failure.
const fail = "FAIL"

func TestScalarFunctions(t *testing.T) {
	n := func(s string) json.Number { return json.Number(s) }
	maxInt := n(fmt.Sprint(int64(math.MaxInt64)))
	minInt := n(fmt.Sprint(int64(math.MinInt64)))
	for _, tc := range []struct {
		fn   ScalarFunc
		args []any
		want string // the result as JSON, or fail
	}{
		// Concat: nulls are empty strings.
		{FnConcat, []any{"a", "b", "c"}, `"abc"`},
		{FnConcat, []any{"Make: ", nil, ", Model: ", "QRTZX22"}, `"Make: , Model: QRTZX22"`},
		{FnConcat, []any{nil, nil}, `""`},
		{FnConcat, []any{"", ""}, `""`},
		{FnConcat, []any{"é", "😀"}, `"é😀"`},
		{FnConcat, []any{"a", n("1")}, fail},
		{FnConcat, []any{"a", true}, fail},

		// CharIndex: 1-based, 0 when absent.
		{FnCharIndex, []any{"aaa", "xaaay"}, `2`},
		{FnCharIndex, []any{"aaa", "xaaay", n("1")}, `2`},
		{FnCharIndex, []any{"so", "Contoso"}, `6`},
		{FnCharIndex, []any{"us", "Contoso"}, `0`},
		{FnCharIndex, []any{"A", "banana"}, `0`}, // case-sensitive
		{FnCharIndex, []any{"a", "banana", n("3")}, `4`},
		{FnCharIndex, []any{"a", "banana", n("0")}, `2`},
		{FnCharIndex, []any{"a", "banana", n("-5")}, `2`},
		{FnCharIndex, []any{"a", "banana", n("6")}, `6`},
		{FnCharIndex, []any{"a", "banana", n("7")}, `0`},
		{FnCharIndex, []any{"a", "banana", maxInt}, `0`},
		{FnCharIndex, []any{"b", "abc", n("2.0")}, `2`},
		{FnCharIndex, []any{"", "abc"}, `0`},
		{FnCharIndex, []any{"a", ""}, `0`},
		{FnCharIndex, []any{"ö", "grüße schön"}, `10`},
		{FnCharIndex, []any{"😀b", "a😀😀b", n("3")}, `3`},
		{FnCharIndex, []any{"a", nil}, `null`},
		{FnCharIndex, []any{nil, "a"}, `null`},
		{FnCharIndex, []any{"a", "abc", nil}, `null`},
		{FnCharIndex, []any{n("1"), "abc"}, fail},
		{FnCharIndex, []any{"a", "abc", "2"}, fail},
		{FnCharIndex, []any{"a", "abc", n("1.5")}, fail},

		// Len: characters, trailing blanks excluded.
		{FnLen, []any{"abc"}, `3`},
		{FnLen, []any{"abc   "}, `3`},
		{FnLen, []any{"  abc"}, `5`},
		{FnLen, []any{"abc\t"}, `4`},
		{FnLen, []any{""}, `0`},
		{FnLen, []any{"   "}, `0`},
		{FnLen, []any{"héllo😀"}, `6`},
		{FnLen, []any{nil}, `null`},
		{FnLen, []any{n("5")}, fail},

		{FnLower, []any{"AbC"}, `"abc"`},
		{FnLower, []any{"ÉÇ"}, `"éç"`},
		{FnLower, []any{""}, `""`},
		{FnLower, []any{nil}, `null`},
		{FnLower, []any{true}, fail},
		{FnUpper, []any{"dev-1"}, `"DEV-1"`},
		{FnUpper, []any{"éç😀"}, `"ÉÇ😀"`},
		{FnUpper, []any{""}, `""`},
		{FnUpper, []any{nil}, `null`},
		{FnUpper, []any{map[string]any{"a": "b"}}, fail},

		// Substring: 1-based; the positions start … start+length−1 that exist.
		{FnSubstring, []any{"abcdefg", n("2"), n("4")}, `"bcde"`},
		{FnSubstring, []any{"abcdefg", n("1"), n("7")}, `"abcdefg"`},
		{FnSubstring, []any{"abcdefg", n("0"), n("3")}, `"ab"`},
		{FnSubstring, []any{"abcdefg", n("-1"), n("3")}, `"a"`},
		{FnSubstring, []any{"abcdefg", n("-5"), n("3")}, `""`},
		{FnSubstring, []any{"abcdefg", n("5"), n("100")}, `"efg"`},
		{FnSubstring, []any{"abcdefg", n("8"), n("1")}, `""`},
		{FnSubstring, []any{"abcdefg", n("2"), n("0")}, `""`},
		{FnSubstring, []any{"abc", n("1"), maxInt}, `"abc"`},
		{FnSubstring, []any{"abc", maxInt, maxInt}, `""`},
		{FnSubstring, []any{"abc", minInt, maxInt}, `""`},
		{FnSubstring, []any{"", n("1"), n("1")}, `""`},
		{FnSubstring, []any{"héllo😀x", n("5"), n("2")}, `"o😀"`},
		{FnSubstring, []any{"abcdefg", n("2"), n("-1")}, fail},
		{FnSubstring, []any{"abcdefg", "2", n("1")}, fail},
		{FnSubstring, []any{nil, n("1"), n("1")}, `null`},
		{FnSubstring, []any{"abc", nil, n("1")}, `null`},
		{FnSubstring, []any{"abc", n("1"), nil}, `null`},

		// Replace: ASA's own examples.
		{FnReplace, []any{"abcde", "cd", "xx"}, `"abxxe"`},
		{FnReplace, []any{"cdabcd", "cd", "x"}, `"xabx"`},
		{FnReplace, []any{"cd", "cd", "xxx"}, `"xxx"`},
		{FnReplace, []any{"abcde", "gh", "xx"}, `"abcde"`},
		{FnReplace, []any{"abcde", "cde", ""}, `"ab"`},
		{FnReplace, []any{"abcde", "", "xxx"}, `"abcde"`},
		{FnReplace, []any{"", "cde", "xxx"}, `""`},
		{FnReplace, []any{"ÄbÄ", "Ä", "ä"}, `"äbä"`},
		{FnReplace, []any{nil, "cde", "xxx"}, `null`},
		{FnReplace, []any{"abcde", nil, "xxx"}, `null`},
		{FnReplace, []any{"abcde", "cde", nil}, `null`},
		{FnReplace, []any{"abcde", n("1"), "x"}, fail},

		{FnTrim, []any{"  a b \t\n"}, `"a b"`},
		{FnTrim, []any{"\u00a0\u3000x\u2028\u0085"}, `"x"`},
		{FnTrim, []any{""}, `""`},
		{FnTrim, []any{"   "}, `""`},
		{FnTrim, []any{nil}, `null`},
		{FnTrim, []any{n("1")}, fail},
		{FnLTrim, []any{"  a  "}, `"a  "`},
		{FnLTrim, []any{nil}, `null`},
		{FnRTrim, []any{"  a  "}, `"  a"`},
		{FnRTrim, []any{"\ta\u2003"}, `"\ta"`},
		{FnRTrim, []any{false}, fail},

		// Abs, Ceiling, Floor, Sign keep the argument's type.
		{FnAbs, []any{n("-5")}, `5`},
		{FnAbs, []any{n("5")}, `5`},
		{FnAbs, []any{n("0")}, `0`},
		{FnAbs, []any{n("-2.5")}, `2.5`},
		{FnAbs, []any{n("-0.0")}, `0.0`},
		{FnAbs, []any{maxInt}, maxInt.String()},
		{FnAbs, []any{minInt}, fail},
		{FnAbs, []any{"-5"}, fail},
		{FnAbs, []any{nil}, `null`},
		{FnCeiling, []any{n("1.2")}, `2.0`},
		{FnCeiling, []any{n("-1.2")}, `-1.0`},
		{FnCeiling, []any{n("-0.5")}, `0.0`},
		{FnCeiling, []any{n("7")}, `7`},
		{FnCeiling, []any{n("-7")}, `-7`},
		{FnCeiling, []any{nil}, `null`},
		{FnCeiling, []any{"1.2"}, fail},
		{FnFloor, []any{n("1.8")}, `1.0`},
		{FnFloor, []any{n("-1.2")}, `-2.0`},
		{FnFloor, []any{n("7")}, `7`},
		{FnFloor, []any{nil}, `null`},
		{FnFloor, []any{true}, fail},
		{FnSign, []any{n("-7")}, `-1`},
		{FnSign, []any{n("0")}, `0`},
		{FnSign, []any{n("3")}, `1`},
		{FnSign, []any{n("-0.1")}, `-1.0`},
		{FnSign, []any{n("0.0")}, `0.0`},
		{FnSign, []any{n("2.5")}, `1.0`},
		{FnSign, []any{nil}, `null`},
		{FnSign, []any{"x"}, fail},

		// Round: ASA's examples, then integers and edges.
		{FnRound, []any{n("1"), n("0")}, `1`},
		{FnRound, []any{n("0"), n("0")}, `0`},
		{FnRound, []any{n("-1"), n("0")}, `-1`},
		{FnRound, []any{n("1.0"), n("0")}, `1.0`},
		{FnRound, []any{n("0.5"), n("0")}, `1.0`},
		{FnRound, []any{n("-0.5"), n("0")}, `-1.0`},
		{FnRound, []any{n("1.234"), n("2")}, `1.23`},
		{FnRound, []any{n("1.234"), n("10")}, `1.234`},
		{FnRound, []any{n("123.4"), n("-1")}, `120.0`},
		{FnRound, []any{n("123.4"), n("-10")}, `0.0`},
		{FnRound, []any{n("501.0101"), n("-3")}, `1000.0`},
		{FnRound, []any{n("123.9995"), n("3")}, `124.0`},
		{FnRound, []any{n("-0.4"), n("0")}, `0.0`},
		{FnRound, []any{n("1234"), n("-2")}, `1200`},
		{FnRound, []any{n("1250"), n("-2")}, `1300`},
		{FnRound, []any{n("-1250"), n("-2")}, `-1300`},
		{FnRound, []any{n("1234"), n("3")}, `1234`},
		{FnRound, []any{n("5"), n("-1000")}, `0`},
		{FnRound, []any{n("1.5"), n("1000")}, `1.5`},
		{FnRound, []any{n("1e300"), n("-1000")}, `0.0`},
		{FnRound, []any{maxInt, n("-1")}, fail},
		{FnRound, []any{n("1.5"), "1"}, fail},
		{FnRound, []any{n("1.5"), n("0.5")}, fail},
		{FnRound, []any{nil, n("1")}, `null`},
		{FnRound, []any{n("1.5"), nil}, `null`},

		{FnPower, []any{n("2"), n("10")}, `1024.0`},
		{FnPower, []any{n("2"), n("-1")}, `0.5`},
		{FnPower, []any{n("2.25"), n("0.5")}, `1.5`},
		{FnPower, []any{n("0"), n("0")}, `1.0`},
		{FnPower, []any{n("-8"), n("0.5")}, fail},
		{FnPower, []any{n("10"), n("400")}, fail},
		{FnPower, []any{n("2"), nil}, `null`},
		{FnPower, []any{"2", n("2")}, fail},
		{FnSqrt, []any{n("16")}, `4.0`},
		{FnSqrt, []any{n("2.25")}, `1.5`},
		{FnSqrt, []any{n("0")}, `0.0`},
		{FnSqrt, []any{n("-1")}, fail},
		{FnSqrt, []any{nil}, `null`},
		{FnSquare, []any{n("3")}, `9.0`},
		{FnSquare, []any{n("-1.5")}, `2.25`},
		{FnSquare, []any{n("1e200")}, fail},
		{FnSquare, []any{nil}, `null`},
		{FnSquare, []any{"3"}, fail},
	} {
		name := fmt.Sprintf("%s%v", tc.fn, tc.args)
		v, ok := callScalar(tc.fn, tc.args)
		if tc.want == fail {
			if ok || v != nil {
				t.Errorf("%s = %v, %v; want a failure", name, v, ok)
			}
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !ok || string(raw) != tc.want {
			t.Errorf("%s = %s, %v; want %s", name, raw, ok, tc.want)
		}
	}
}

func TestEveryFunctionIsCovered(t *testing.T) {
	for fn := range scalarFuncs {
		if v, ok := callScalar(fn, make([]any, len(scalarFuncs[fn].params))); !ok || (v != nil && fn != FnConcat) {
			t.Errorf("%s(nulls) = %v, %v; want null", fn, v, ok)
		}
	}
}

func TestManageFieldsCompute(t *testing.T) {
	for _, tc := range []struct {
		name, op string
		in       []string
		want     []string
		failures int64
	}{
		{"fabric projection: template's CharIndex", `{"keep":["id","n","u"],"compute":[
			{"fn":"CharIndex","args":[{"literal":"aaa"},{"field":"device.id"},{"literal":1}],"as":"n"},
			{"fn":"Upper","args":[{"field":"name"}],"as":"u"}]}`,
			[]string{`{"id":1,"device":{"id":"xaaay"},"name":"ab","n":"old"}`, `{"id":2,"name":5}`, `{"id":3,"device":{"id":null},"name":null}`},
			[]string{`{"id":1,"n":2,"u":"AB"}`, `{"id":2,"n":null,"u":null}`, `{"id":3,"n":null,"u":null}`}, 1},
		{"arguments are input fields, computed fields come last", `{"drop":["name"],"rename":{"id":"ident"},"cast":{"id":"string"},"compute":[
			{"fn":"len","args":[{"field":"name"}],"as":"name_len"},
			{"fn":"concat","args":[{"field":"id"},{"literal":"-"},{"field":"name"}],"as":"key"},
			{"fn":"abs","args":[{"field":"id"}],"as":"id"}]}`,
			[]string{`{"id":-7,"name":"héllo  "}`},
			[]string{`{"id":7,"ident":"-7","key":null,"name_len":5}`}, 1},
		{"literals only, no input fields", `{"compute":[{"fn":"round","args":[{"literal":2.567},{"literal":2}],"as":"r"},
			{"fn":"substring","args":[{"literal":"abcdefg"},{"literal":2},{"literal":4}],"as":"s"},
			{"fn":"concat","args":[{"literal":null},{"literal":"x"}],"as":"c"}]}`,
			[]string{`{}`, `{"r":"replaced"}`},
			[]string{`{"c":"x","r":2.57,"s":"bcde"}`, `{"c":"x","r":2.57,"s":"bcde"}`}, 0},
		{"dotted and literal dotted names", `{"keep":["a.b"],"compute":[{"fn":"sqrt","args":[{"field":"a.b"}],"as":"root"},
			{"fn":"sign","args":[{"field":"x.y"}],"as":"sg"}]}`,
			[]string{`{"a.b":16,"x":{"y":-2.5}}`, `{"a.b":-1}`},
			[]string{`{"a.b":16,"root":4.0,"sg":-1.0}`, `{"a.b":-1,"root":null,"sg":null}`}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustPipeline(t, `[{"type":"ManageFields",`+tc.op[1:]+`]`)
			srcs := make([]rows.Row, len(tc.in))
			var evs []Event
			for i, d := range tc.in {
				srcs[i] = row(d)
				evs = append(evs, Event{Row: srcs[i], Offset: -1})
			}
			before := texts(srcs)
			if got := texts(p.Process(evs)); !equalTexts(got, tc.want) {
				t.Fatalf("got  %v\nwant %v", got, tc.want)
			}
			if after := texts(srcs); !equalTexts(before, after) {
				t.Fatalf("input rows changed: %v -> %v", before, after)
			}
			if s := p.Stats(); s.FunctionFailures != tc.failures || s.Rows != int64(len(tc.in)) || s.CastFailures != 0 {
				t.Fatalf("stats %+v, want %d function failures", s, tc.failures)
			}
		})
	}
}

func TestComputeParse(t *testing.T) {
	doc := `[{"type":"ManageFields","keep":["n"],"compute":[
		{"fn":"CharIndex","args":[{"literal":"aaa"},{"field":"deviceId"},{"literal":1}],"as":"n"},
		{"fn":"CONCAT","args":[{"literal":null},{"field":"a"},{"literal":""}],"as":"c"}]}]`
	got := mustParse(t, doc)
	want := []Operator{ManageFields{Keep: []string{"n"}, Compute: []Compute{
		{Fn: FnCharIndex, Args: []Arg{{Value: "aaa"}, {Field: "deviceId"}, {Value: json.Number("1")}}, As: "n"},
		{Fn: FnConcat, Args: []Arg{{Value: nil}, {Field: "a"}, {Value: ""}}, As: "c"},
	}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
	canon, err := Format(got)
	if err != nil {
		t.Fatal(err)
	}
	const wantCanon = `[{"type":"ManageFields","keep":["n"],"compute":[{"fn":"charindex","args":[{"literal":"aaa"},{"field":"deviceId"},{"literal":1}],"as":"n"},{"fn":"concat","args":[{"literal":null},{"field":"a"},{"literal":""}],"as":"c"}]}]`
	if string(canon) != wantCanon {
		t.Fatalf("canonical %s\nwant      %s", canon, wantCanon)
	}
	if again := mustParse(t, string(canon)); !reflect.DeepEqual(again, got) {
		t.Fatalf("canonical form parses to %#v", again)
	}
	// Hand-built operators are checked and run the same way.
	p, err := New([]Operator{ManageFields{Compute: []Compute{{Fn: FnUpper, Args: []Arg{{Value: "x"}}, As: "u"}, {Fn: FnRound, Args: []Arg{{Value: 1.25}, {Value: 1}}, As: "r"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if out := texts(p.Process(events(`{"a":1}`))); len(out) != 1 || out[0] != `{"a":1,"r":1.3,"u":"X"}` {
		t.Fatalf("got %v", out)
	}
}

func TestComputeRefusals(t *testing.T) {
	const mf = `[{"type":"ManageFields","rename":{"a":"ra"},"compute":[`
	for _, tc := range []struct {
		doc, field   string
		notSupported bool
		msg          string
	}{
		{`{"fn":"Exp","args":[{"field":"x"}],"as":"e"}`, "operators[0].compute[0].fn", true, "Exp is not supported by the emulator: ManageFields computes only Concat, CharIndex"},
		{`{"fn":"left","args":[{"field":"x"},{"literal":2}],"as":"e"}`, "operators[0].compute[0].fn", true, "left is not supported"},
		{`{"args":[],"as":"e"}`, "operators[0].compute[0].fn", false, "required"},
		{`{"fn":"upper","args":[{"field":"x"}]}`, "operators[0].compute[0].as", false, "required"},
		{`{"fn":"upper","args":{"field":"x"},"as":"u"}`, "operators[0].compute[0].args", false, "array"},
		{`{"fn":"upper","as":"u"}`, "operators[0].compute[0].args", false, "array"},
		{`{"fn":"upper","args":[{"field":"x","literal":1}],"as":"u"}`, "operators[0].compute[0].args[0]", false, "exactly one"},
		{`{"fn":"upper","args":[{}],"as":"u"}`, "operators[0].compute[0].args[0]", false, "exactly one"},
		{`{"fn":"upper","args":["x"],"as":"u"}`, "operators[0].compute[0].args[0]", false, "field"},
		{`{"fn":"upper","args":[{"field":""}],"as":"u"}`, "operators[0].compute[0].args[0].field", false, "empty"},
		{`{"fn":"upper","args":[{"column":"x"}],"as":"u"}`, "operators[0].compute[0].args[0].column", false, "unknown member"},
		{`{"fn":"upper","args":[{"field":"x"}],"as":"u","extra":1}`, "operators[0].compute[0].extra", false, "unknown member"},
		{`{"fn":"upper","args":[{"field":"x"},{"field":"y"}],"as":"u"}`, "operators[0].compute[0].args", false, "Upper takes 1 argument(s), got 2"},
		{`{"fn":"charindex","args":[{"field":"x"}],"as":"u"}`, "operators[0].compute[0].args", false, "CharIndex takes 2 to 3 arguments, got 1"},
		{`{"fn":"concat","args":[{"field":"x"}],"as":"u"}`, "operators[0].compute[0].args", false, "Concat takes at least 2 arguments, got 1"},
		{`{"fn":"upper","args":[{"literal":5}],"as":"u"}`, "operators[0].compute[0].args[0].literal", false, "Upper wants a string here, got a number"},
		{`{"fn":"abs","args":[{"literal":"5"}],"as":"u"}`, "operators[0].compute[0].args[0].literal", false, "Abs wants a number here, got a string"},
		{`{"fn":"substring","args":[{"field":"s"},{"literal":1.5},{"literal":2}],"as":"u"}`, "operators[0].compute[0].args[1].literal", false, "Substring wants an integer here"},
		{`{"fn":"concat","args":[{"field":"s"},{"literal":{"a":1}}],"as":"u"}`, "operators[0].compute[0].args[1].literal", false, "got an object"},
		{`{"fn":"upper","args":[{"field":"x"}],"as":"u"},{"fn":"lower","args":[{"field":"x"}],"as":"u"}`, "operators[0].compute[1].as", false, "another computed field"},
		{`{"fn":"upper","args":[{"field":"x"}],"as":"ra"}`, "operators[0].compute[0].as", false, `"ra" is also the new name of "a"`},
	} {
		t.Run(tc.field+" "+tc.msg, func(t *testing.T) {
			_, err := Parse([]byte(mf + tc.doc + `]}]`))
			var ns *NotSupportedError
			var ve *ValidationError
			switch {
			case tc.notSupported && errors.As(err, &ns):
				if ns.Field != tc.field || !strings.Contains(ns.Error(), tc.msg) {
					t.Fatalf("got %v, want field %s and %q", err, tc.field, tc.msg)
				}
			case !tc.notSupported && errors.As(err, &ve):
				if ve.Field != tc.field || !strings.Contains(ve.Message, tc.msg) {
					t.Fatalf("got %v, want field %s and %q", err, tc.field, tc.msg)
				}
			default:
				t.Fatalf("got %v (%T)", err, err)
			}
		})
	}
	// New refuses hand-built computes the same way.
	for _, c := range []Compute{
		{Fn: "exp", Args: []Arg{{Field: "x"}}, As: "e"},
		{Fn: FnUpper, Args: []Arg{{Value: struct{}{}}}, As: "e"},
		{Fn: FnUpper, Args: []Arg{{Field: "x"}}},
	} {
		if _, err := New([]Operator{ManageFields{Compute: []Compute{c}}}); err == nil || !strings.HasPrefix(err.Error(), "operators[0].compute[0].") {
			t.Errorf("New(%+v) = %v", c, err)
		}
	}
}
