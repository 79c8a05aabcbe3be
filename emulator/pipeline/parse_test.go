package pipeline

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseShapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string
		want []Operator
	}{
		{"filter leaf", `[{"type":"Filter","condition":{"field":"temp","op":"gt","value":20}}]`,
			[]Operator{Filter{Condition: Condition{Field: "temp", Op: OpGt, Value: json.Number("20")}}}},
		{"filter and/or/not", `[{"type":"filter","name":"hot","condition":{"and":[
			{"field":"site","op":"eq","value":"oslo"},
			{"or":[{"field":"temp","op":"GTE","value":30},{"not":{"field":"alarm","op":"exists"}}]}]}}]`,
			[]Operator{Filter{Name: "hot", Condition: Condition{And: []Condition{
				{Field: "site", Op: OpEq, Value: "oslo"},
				{Or: []Condition{{Field: "temp", Op: OpGte, Value: json.Number("30")}, {Not: &Condition{Field: "alarm", Op: OpExists}}}},
			}}}}},
		{"fabric op names", `[{"type":"Filter","condition":{"or":[
			{"field":"a","op":"NotEquals","value":"0"},
			{"field":"b","op":"DoesNotContain","value":"x"},
			{"field":"c","op":"IsNull"},
			{"field":"d","op":"IsNotNullOrEmpty"}]}}]`,
			[]Operator{Filter{Condition: Condition{Or: []Condition{
				{Field: "a", Op: OpNe, Value: "0"},
				{Not: &Condition{Field: "b", Op: OpContains, Value: "x"}},
				{Field: "c", Op: OpExists, Value: false},
				{And: []Condition{{Field: "d", Op: OpExists}, {Field: "d", Op: OpNe, Value: ""}}},
			}}}}},
		{"manage fields", `{"operators":[{"type":"ManageFields","keep":["id","temp","ts","device.id"],"drop":["debug"],
			"rename":{"device.id":"device"},"cast":{"temp":"Float","ts":"timestamp"}}]}`,
			[]Operator{ManageFields{Keep: []string{"id", "temp", "ts", "device.id"}, Drop: []string{"debug"},
				Rename: map[string]string{"device.id": "device"}, Cast: map[string]FieldType{"temp": TypeDouble, "ts": TypeTimestamp}}}},
		{"groupby window object", `[{"type":"GroupBy","keys":["device"],
			"aggregates":[{"fn":"count","as":"n"},{"fn":"Average","field":"temp"}],
			"window":{"kind":"Hopping","duration":"10m","hop":"5m","on":"ts","allowedLateness":"30s"}}]`,
			[]Operator{GroupBy{Keys: []string{"device"},
				Aggregates: []Aggregate{{Fn: Count, As: "n"}, {Fn: Avg, Field: "temp", As: "avg_temp"}},
				Window:     Window{Kind: Hopping, Duration: 10 * time.Minute, Hop: 5 * time.Minute, On: "ts", AllowedLateness: 30 * time.Second}}}},
		{"groupby seed flat window", `[{"type":"GroupBy","keys":["src"],"aggregates":[{"fn":"sum","field":"v","as":"total"}],
			"kind":"tumbling","duration":"1m","on":"ts"}]`,
			[]Operator{GroupBy{Keys: []string{"src"}, Aggregates: []Aggregate{{Fn: Sum, Field: "v", As: "total"}},
				Window: Window{Kind: Tumbling, Duration: time.Minute, On: "ts"}}}},
		{"seed window then groupby fuse", `[{"type":"Window","kind":"tumbling","duration":"1m","on":"ts"},
			{"type":"GroupBy","keys":["_window_start","src"],"aggregates":[{"fn":"count","as":"n"}]}]`,
			[]Operator{GroupBy{Keys: []string{"src"}, Aggregates: []Aggregate{{Fn: Count, As: "n"}},
				Window: Window{Kind: Tumbling, Duration: time.Minute, On: "ts"}}}},
		{"seed window alone stamps", `[{"type":"Window","kind":"tumbling","duration":"1m"}]`,
			[]Operator{WindowStamp{Window: Window{Kind: Tumbling, Duration: time.Minute}}}},
		{"fabric durations and offset", `[{"type":"GroupBy","aggregates":[{"fn":"max","field":"v"}],
			"window":{"kind":"tumbling","duration":{"value":5,"unit":"Minute"},"offset":{"value":1,"unit":"minute"}}}]`,
			[]Operator{GroupBy{Aggregates: []Aggregate{{Fn: Max, Field: "v", As: "max_v"}},
				Window: Window{Kind: Tumbling, Duration: 5 * time.Minute, Offset: time.Minute}}}},
		{"single object", `{"type":"Filter","condition":{"field":"n","op":"exists"}}`,
			[]Operator{Filter{Condition: Condition{Field: "n", Op: OpExists}}}},
		{"empty list", `[]`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mustParse(t, tc.doc)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %#v\nwant %#v", got, tc.want)
			}
			// The canonical form parses back to the same operators.
			canon, err := Format(got)
			if err != nil {
				t.Fatal(err)
			}
			again := mustParse(t, string(canon))
			if !reflect.DeepEqual(again, got) && !(len(again) == 0 && len(got) == 0) {
				t.Fatalf("canonical %s parses to %#v", canon, again)
			}
			if _, err := New(got); err != nil {
				t.Fatalf("New: %v", err)
			}
		})
	}
}

func TestParseRefusals(t *testing.T) {
	for _, tc := range []struct {
		doc, field, name string
	}{
		{`[{"type":"Filter","condition":{"field":"a","op":"exists"}},{"type":"sql","query":"x"}]`, "operators[1].type", "SQL"},
		{`[{"type":"Aggregate","aggregates":[{"fn":"avg","field":"v","duration":"1m"},{"fn":"StandardDeviation","field":"v","duration":"1m"}]}]`, "operators[0].aggregates[1].fn", "StandardDeviation"},
		{`[{"type":"SQL","query":"SELECT 1"}]`, "operators[0].type", "SQL"},
		{`[{"type":"Window","kind":"sliding","duration":"1m"}]`, "operators[0].kind", "a stand-alone sliding Window"},
		{`[{"type":"Window","kind":"hopping","duration":"1m","hop":"30s"}]`, "operators[0].kind", "a stand-alone hopping Window"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"},{"fn":"PercentileContinuous","field":"v"}],"window":{"kind":"tumbling","duration":"1m"}}]`, "operators[0].aggregates[1].fn", "PercentileContinuous"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"tumbling","duration":{"value":1,"unit":"Month"}}}]`, "operators[0].window.duration.unit", "Month"},
		{`{"type":"SQL"}`, "type", "SQL"},
	} {
		t.Run(tc.field+" "+tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc))
			var ns *NotSupportedError
			if !errors.As(err, &ns) {
				t.Fatalf("Parse(%s) = %v, want *NotSupportedError", tc.doc, err)
			}
			if ns.Field != tc.field || ns.Name != tc.name || ns.Reason == "" {
				t.Fatalf("got field %q name %q reason %q, want field %q name %q", ns.Field, ns.Name, ns.Reason, tc.field, tc.name)
			}
			if ns.ErrorCode() != "EventstreamOperatorNotSupported" || !strings.Contains(ns.Error(), tc.field+": ") {
				t.Fatalf("code %s message %q", ns.ErrorCode(), ns.Error())
			}
		})
	}
}

func TestParseValidationErrors(t *testing.T) {
	const win = `"window":{"kind":"tumbling","duration":"1m"}`
	for _, tc := range []struct {
		doc, field, msg string
	}{
		{`{`, "", "malformed JSON"},
		{`[1]`, "operators[0]", "operator object"},
		{`"x"`, "", "operator object or an array"},
		{`{"operators":{}}`, "operators", "array"},
		{`[{}]`, "operators[0].type", "required"},
		{`[{"type":7}]`, "operators[0].type", "want a string"},
		{`[{"type":"Map"}]`, "operators[0].type", "not one of"},
		{`[{"type":"Filter"}]`, "operators[0].condition", "required"},
		{`[{"type":"Filter","condition":{"op":"eq","value":1}}]`, "operators[0].condition.field", "required"},
		{`[{"type":"Filter","condition":{"field":"n"}}]`, "operators[0].condition.op", "required"},
		{`[{"type":"Filter","condition":{"field":"n","op":"like"}}]`, "operators[0].condition.op", `"like" is not one of`},
		{`[{"type":"Filter","condition":{"field":"n","op":"gt","value":true}}]`, "operators[0].condition.value", "numbers or strings"},
		{`[{"type":"Filter","condition":{"field":"n","op":"gt"}}]`, "operators[0].condition.value", "numbers or strings"},
		{`[{"type":"Filter","condition":{"field":"n","op":"eq","value":[1]}}]`, "operators[0].condition.value", "an array"},
		{`[{"type":"Filter","condition":{"field":"n","op":"contains"}}]`, "operators[0].condition.value", "contains needs"},
		{`[{"type":"Filter","condition":{"field":"n","op":"startsWith","value":1}}]`, "operators[0].condition.value", "needs a string"},
		{`[{"type":"Filter","condition":{"field":"n","op":"exists","value":"yes"}}]`, "operators[0].condition.value", "exists takes"},
		{`[{"type":"Filter","condition":{"and":[]}}]`, "operators[0].condition.and", "non-empty"},
		{`[{"type":"Filter","condition":{"and":[{"field":"a","op":"exists"}],"field":"b"}}]`, "operators[0].condition", "only member"},
		{`[{"type":"Filter","condition":{"or":[{"field":"a","op":"exists"},{"field":"b","op":"nope"}]}}]`, "operators[0].condition.or[1].op", "not one of"},
		{`[{"type":"Filter","condition":{"not":{"not":{"field":"","op":"eq"}}}}]`, "operators[0].condition.not.not.field", "must not be empty"},
		{`[{"type":"Filter","condition":{"field":"a","op":"eq","value":1,"extra":1}}]`, "operators[0].condition.extra", "unknown member"},
		{`[{"type":"Filter","condition":{"field":"a","op":"exists"},"keys":["x"]}]`, "operators[0].keys", "unknown member"},
		{`[{"type":"ManageFields"}]`, "operators[0]", "at least one of keep"},
		{`[{"type":"ManageFields","keep":"a"}]`, "operators[0].keep", "array"},
		{`[{"type":"ManageFields","keep":["a",2]}]`, "operators[0].keep[1]", "field name"},
		{`[{"type":"ManageFields","keep":["a","a"]}]`, "operators[0].keep[1]", "listed twice"},
		{`[{"type":"ManageFields","keep":["a"],"drop":["b","a"]}]`, "operators[0].drop[1]", "also in keep"},
		{`[{"type":"ManageFields","cast":{"a":"money"}}]`, "operators[0].cast.a", "not one of string"},
		{`[{"type":"ManageFields","cast":{"a":1}}]`, "operators[0].cast.a", "want a string"},
		{`[{"type":"ManageFields","keep":["a"],"cast":{"b":"long"}}]`, "operators[0].cast.b", "keep/drop removes"},
		{`[{"type":"ManageFields","drop":["a"],"rename":{"a.b":"c"}}]`, `operators[0].rename["a.b"]`, "keep/drop removes"},
		{`[{"type":"ManageFields","rename":{"a":"x","b":"x"}}]`, "operators[0].rename.b", "also the new name"},
		{`[{"type":"ManageFields","rename":{"a":""}}]`, "operators[0].rename.a", "must not be empty"},
		{`[{"type":"ManageFields","keep":["a","b"],"rename":{"a":"b"}}]`, "operators[0].rename.a", "overwrite a kept field"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}]}]`, "operators[0].window", "needs a window"},
		{`[{"type":"GroupBy",` + win + `}]`, "operators[0].aggregates", "required"},
		{`[{"type":"GroupBy","aggregates":[],` + win + `}]`, "operators[0].aggregates", "non-empty"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"median","field":"v"}],` + win + `}]`, "operators[0].aggregates[0].fn", `"median" is not one of`},
		{`[{"type":"Filter","condition":{"field":"a","op":"exists"}},{"type":"GroupBy","aggregates":[{"fn":"count"},{"fn":"sum"}],` + win + `}]`, "operators[1].aggregates[1].field", "sum needs a field"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count","as":"n"},{"fn":"sum","field":"v","as":"n"}],` + win + `}]`, "operators[0].aggregates[1].as", "output of another"},
		{`[{"type":"GroupBy","keys":["n"],"aggregates":[{"fn":"count","as":"n"}],` + win + `}]`, "operators[0].aggregates[0].as", "also a key"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count","as":"window_end"}],` + win + `}]`, "operators[0].aggregates[0].as", "written by the window"},
		{`[{"type":"GroupBy","keys":["_window_start"],"aggregates":[{"fn":"count"}],` + win + `}]`, "operators[0].keys[0]", "cannot be a key"},
		{`[{"type":"GroupBy","keys":["a","a"],"aggregates":[{"fn":"count"}],` + win + `}]`, "operators[0].keys[1]", "listed twice"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count","bogus":1}],` + win + `}]`, "operators[0].aggregates[0].bogus", "unknown member"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"duration":"1m"}}]`, "operators[0].window.kind", "required"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"weekly","duration":"1m"}}]`, "operators[0].window.kind", "not tumbling, hopping, sliding, session or snapshot"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"session","duration":"1m"}}]`, "operators[0].window.timeout", "required"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"session","timeout":"2m","maxDuration":"1m"}}]`, "operators[0].window.timeout", "longer than maxDuration"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"snapshot","duration":"1m"}}]`, "operators[0].window.duration", "no duration"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"sliding"}}]`, "operators[0].window.duration", "required"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"sliding","duration":"1m","hop":"10s"}}]`, "operators[0].window.hop", "tumbling and hopping"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"tumbling","duration":"1m","timeout":"10s"}}]`, "operators[0].window.timeout", "for session windows"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"tumbling"}}]`, "operators[0].window.duration", "required"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"tumbling","duration":"soon"}}]`, "operators[0].window.duration", "not a duration"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"tumbling","duration":60}}]`, "operators[0].window.duration", "duration string"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"tumbling","duration":"0s"}}]`, "operators[0].window.duration", "positive"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"tumbling","duration":"100000h"}}]`, "operators[0].window.duration", "longer than"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"tumbling","duration":{"value":1,"unit":"fortnight"}}}]`, "operators[0].window.duration.unit", "not one of"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"tumbling","duration":{"value":-1,"unit":"second"}}}]`, "operators[0].window.duration.value", "non-negative"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"tumbling","duration":"1m","hop":"30s"}}]`, "operators[0].window.hop", "hopping windows"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"hopping","duration":"1m"}}]`, "operators[0].window.hop", "needs hop"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"hopping","duration":"1m","hop":"2m"}}]`, "operators[0].window.hop", "longer than the duration"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"hopping","duration":"1h","hop":"1s"}}]`, "operators[0].window.hop", "at most 1000"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"tumbling","duration":"1m","offset":"1m"}}]`, "operators[0].window.offset", "shorter than"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"tumbling","duration":"1m","allowedLateness":"-1s"}}]`, "operators[0].window.allowedLateness", "negative"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"tumbling","duration":"1m","on":""}}]`, "operators[0].window.on", "must name a field"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"tumbling","duration":"1m"},"kind":"tumbling"}]`, "operators[0].window", "not both"},
		{`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":"1m"}]`, "operators[0].window", "want an object"},
		{`[{"type":"Window","duration":"1m"}]`, "operators[0].kind", "required"},
		{`[{"type":"Window"}]`, "operators[0].kind", "required"},
		{`{"type":"GroupBy","aggregates":[{"fn":"nope"}],"window":{"kind":"tumbling","duration":"1m"}}`, "aggregates[0].fn", "not one of"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			ops, err := Parse([]byte(tc.doc))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Parse(%s) = %v, %v; want *ValidationError", tc.doc, ops, err)
			}
			if ve.Field != tc.field || !strings.Contains(ve.Message, tc.msg) {
				t.Fatalf("Parse(%s):\n got field %q message %q\nwant field %q message containing %q", tc.doc, ve.Field, ve.Message, tc.field, tc.msg)
			}
			if ve.ErrorCode() != "InvalidInput" {
				t.Fatal(ve.ErrorCode())
			}
		})
	}
}

func TestNewChecksHandBuiltOperators(t *testing.T) {
	for _, tc := range []struct {
		ops   []Operator
		field string
	}{
		{[]Operator{nil}, "operators[0]"},
		{[]Operator{Filter{}}, "operators[0].condition"},
		{[]Operator{Filter{Condition: Condition{Field: "a", Op: OpEq, Value: struct{}{}}}}, "operators[0].condition.value"},
		{[]Operator{Filter{Condition: Condition{Field: "a", Op: OpExists}}, GroupBy{Aggregates: []Aggregate{{Fn: Count}}}}, "operators[1].window.kind"},
		{[]Operator{ManageFields{Cast: map[string]FieldType{"a": "money"}}}, "operators[0].cast.a"},
		{[]Operator{WindowStamp{Window: Window{Kind: Tumbling}}}, "operators[0].duration"},
	} {
		_, err := New(tc.ops)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != tc.field {
			t.Errorf("New(%#v) = %v, want a *ValidationError at %s", tc.ops, err, tc.field)
		}
	}
	// Deep nesting is refused rather than recursed without bound.
	c := Condition{Field: "a", Op: OpExists}
	for range maxDepth + 2 {
		c = Condition{Not: &c}
	}
	if _, err := New([]Operator{Filter{Condition: c}}); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Errorf("deep nesting: %v", err)
	}
	doc := strings.Repeat(`{"not":`, maxDepth+2) + `{"field":"a","op":"exists"}` + strings.Repeat(`}`, maxDepth+2)
	if _, err := Parse([]byte(`{"type":"Filter","condition":` + doc + `}`)); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Errorf("deep nesting in JSON: %v", err)
	}
}

func TestAggregateOutputNames(t *testing.T) {
	for _, tc := range []struct {
		a    Aggregate
		want string
	}{
		{Aggregate{Fn: Count}, "count"},
		{Aggregate{Fn: Count, Field: "x"}, "count_x"},
		{Aggregate{Fn: Avg, Field: "a.b"}, "avg_a_b"},
		{Aggregate{Fn: Sum, Field: "x", As: "total"}, "total"},
	} {
		if got := tc.a.Output(); got != tc.want {
			t.Errorf("%+v.Output() = %q, want %q", tc.a, got, tc.want)
		}
	}
}
