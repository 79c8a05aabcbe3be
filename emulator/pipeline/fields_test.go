package pipeline

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

func TestManageFields(t *testing.T) {
	in := `{"id":1,"temp":"21.5","debug":"x","device":{"id":"d1","fw":"2"},"a.b":7,"ts":1767225600000}`
	for _, tc := range []struct {
		name, op, want string
	}{
		{"keep", `{"keep":["id","temp","missing"]}`, `{"id":1,"temp":"21.5"}`},
		{"keep nested", `{"keep":["id","device.id"]}`, `{"device":{"id":"d1"},"id":1}`},
		{"keep literal dotted key", `{"keep":["a.b"]}`, `{"a.b":7}`},
		{"drop", `{"drop":["debug","device","missing"]}`, `{"a.b":7,"id":1,"temp":"21.5","ts":1767225600000}`},
		{"drop nested", `{"drop":["device.fw","debug","a.b","ts"]}`, `{"device":{"id":"d1"},"id":1,"temp":"21.5"}`},
		{"drop prunes emptied parents", `{"drop":["device.fw","device.id","debug","a.b","ts"]}`, `{"id":1,"temp":"21.5"}`},
		{"rename flattens", `{"keep":["id","device.id"],"rename":{"device.id":"device_id"}}`, `{"device_id":"d1","id":1}`},
		{"rename swap", `{"keep":["id","temp"],"rename":{"id":"temp","temp":"id"}}`, `{"id":"21.5","temp":1}`},
		{"rename missing creates nothing", `{"drop":["debug","device","a.b","ts","temp"],"rename":{"nope":"x"}}`, `{"id":1}`},
		{"rename overwrites", `{"drop":["device","a.b","ts"],"rename":{"debug":"id"}}`, `{"id":"x","temp":"21.5"}`},
		{"cast then rename uses input names", `{"keep":["temp","ts"],"cast":{"temp":"double","ts":"timestamp"},"rename":{"temp":"celsius"}}`,
			`{"celsius":21.5,"ts":"2026-01-01T00:00:00Z"}`},
		{"cast nested", `{"keep":["device"],"cast":{"device.fw":"long"}}`, `{"device":{"fw":2,"id":"d1"}}`},
		{"failed cast nulls, row kept", `{"keep":["id","debug"],"cast":{"debug":"long"}}`, `{"debug":null,"id":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustPipeline(t, `[{"type":"ManageFields",`+tc.op[1:]+`]`)
			src := row(in)
			before := texts([]rows.Row{src})
			out := p.Process([]Event{{Row: src, Offset: -1}})
			if got := texts(out); len(got) != 1 || got[0] != tc.want {
				t.Fatalf("got %v, want %s", got, tc.want)
			}
			if after := texts([]rows.Row{src}); !equalTexts(before, after) {
				t.Fatalf("input row changed: %v -> %v", before, after)
			}
		})
	}
}

func TestCastFailuresAreCountedNotDropped(t *testing.T) {
	p := mustPipeline(t, `[{"type":"ManageFields","cast":{"n":"long","b":"boolean"}}]`)
	out := p.Process(events(`{"n":"12"}`, `{"n":"twelve","b":"maybe"}`, `{"b":"TRUE"}`, `{"n":null}`))
	want := []string{`{"n":12}`, `{"b":null,"n":null}`, `{"b":true}`, `{"n":null}`}
	if got := texts(out); !equalTexts(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if s := p.Stats(); s.CastFailures != 2 || s.Rows != 4 {
		t.Fatalf("stats %+v", s)
	}
}

func TestCastValue(t *testing.T) {
	n := func(s string) json.Number { return json.Number(s) }
	obj := map[string]any{"k": n("1")}
	for _, tc := range []struct {
		in   any
		to   FieldType
		want any
		ok   bool
	}{
		{nil, TypeLong, nil, true},
		{"x", TypeString, "x", true},
		{n("1.50"), TypeString, "1.50", true},
		{3, TypeString, "3", true},
		{2.5, TypeString, "2.5", true},
		{true, TypeString, "true", true},
		{obj, TypeString, `{"k":1}`, true},
		{[]any{n("1"), "a"}, TypeString, `[1,"a"]`, true},

		{n("42"), TypeLong, n("42"), true},
		{n("42.9"), TypeLong, n("42"), true},
		{n("-42.9"), TypeLong, n("-42"), true},
		{n("1e3"), TypeLong, n("1000"), true},
		{n("1e30"), TypeLong, nil, false},
		{" 17 ", TypeLong, n("17"), true},
		{"17.8", TypeLong, n("17"), true},
		{"seventeen", TypeLong, nil, false},
		{true, TypeLong, n("1"), true},
		{false, TypeLong, n("0"), true},
		{obj, TypeLong, nil, false},
		{uint64(1 << 63), TypeLong, nil, false},

		{n("2"), TypeDouble, n("2.0"), true},
		{n("2.25"), TypeDouble, n("2.25"), true},
		{"1e3", TypeDouble, n("1000.0"), true},
		{"NaN", TypeDouble, nil, false},
		{"Inf", TypeDouble, nil, false},
		{"x", TypeDouble, nil, false},
		{true, TypeDouble, n("1.0"), true},
		{[]any{}, TypeDouble, nil, false},

		{true, TypeBoolean, true, true},
		{" False ", TypeBoolean, false, true},
		{"1", TypeBoolean, true, true},
		{"yes", TypeBoolean, nil, false},
		{n("0"), TypeBoolean, false, true},
		{n("0.5"), TypeBoolean, true, true},
		{obj, TypeBoolean, nil, false},

		{"2026-01-01T01:00:00+01:00", TypeTimestamp, "2026-01-01T00:00:00Z", true},
		{"2026-01-01T00:00:00.250Z", TypeTimestamp, "2026-01-01T00:00:00.25Z", true},
		{n("1767225600000"), TypeTimestamp, "2026-01-01T00:00:00Z", true},
		{n("1767225600000.5"), TypeTimestamp, "2026-01-01T00:00:00.0005Z", true},
		{"yesterday", TypeTimestamp, nil, false},
		{true, TypeTimestamp, nil, false},
		{n("1e20"), TypeTimestamp, nil, false},
	} {
		got, ok := castValue(tc.in, tc.to)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("castValue(%#v, %s) = %#v, %v; want %#v, %v", tc.in, tc.to, got, ok, tc.want, tc.ok)
		}
	}
}
