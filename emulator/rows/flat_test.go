package rows

import (
	"encoding/json"
	"testing"
)

// TestScanFlatAcceptsPlainObjects: the members of plain objects come out
// in order, with their kinds and texts.
func TestScanFlatAcceptsPlainObjects(t *testing.T) {
	ms, ok := ScanFlat(nil, []byte(` {"device":"d1", "seq":-12.5e3,"on":true,"off":false,"n":null,"é":"ü"} `))
	if !ok {
		t.Fatal("ScanFlat refused a plain object")
	}
	want := []struct {
		name string
		kind Kind
		text string
	}{{"device", String, "d1"}, {"seq", Number, "-12.5e3"}, {"on", True, ""}, {"off", False, ""}, {"n", Null, ""}, {"é", String, "ü"}}
	if len(ms) != len(want) {
		t.Fatalf("got %d members, want %d", len(ms), len(want))
	}
	for i, w := range want {
		if string(ms[i].Name) != w.name || ms[i].Kind != w.kind || string(ms[i].Text) != w.text {
			t.Errorf("member %d = %q %d %q, want %q %d %q", i, ms[i].Name, ms[i].Kind, ms[i].Text, w.name, w.kind, w.text)
		}
	}
	if ms, ok := ScanFlat(ms, []byte(`{}`)); !ok || len(ms) != 0 {
		t.Errorf("empty object: %d members, ok %v", len(ms), ok)
	}
}

// TestScanFlatRefusesWhatNeedsDecoding: everything that is not a plain
// object is left to FromValue.
func TestScanFlatRefusesWhatNeedsDecoding(t *testing.T) {
	for _, v := range []string{
		``, `null`, `[1]`, `"s"`, `12`, `{"a":{"b":1}}`, `{"a":[1]}`, `{"a":"x\"y"}`, `{"a\n":1}`,
		`{"a":1,"a":2}`, `{"a":1}x`, `{"a":1`, `{"a":01}`, `{"a":tru}`, "{\"a\":\"\xff\"}", "{\"a\":\"\x01\"}",
		"\v{\"a\":1}", `{"a":1,}`, `{a:1}`,
	} {
		if _, ok := ScanFlat(nil, []byte(v)); ok {
			t.Errorf("ScanFlat accepted %q", v)
		}
	}
}

// FuzzScanFlat: whatever ScanFlat accepts, FromValue decodes to a row of
// exactly the same members and values.
func FuzzScanFlat(f *testing.F) {
	for _, seed := range []string{
		`{"a":1}`, `{"a":"x","b":2.5,"c":true,"d":false,"e":null}`, `{"a":1,"a":2}`, `{"a":{"b":1}}`,
		` {"é":"ü"} `, `{"a":"x\"y"}`, `{"a":-0.0e+1}`, `{}`, "{\"a\":\"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		ms, ok := ScanFlat(nil, v)
		if !ok {
			return
		}
		row := FromValue(v)
		if len(row) != len(ms) {
			t.Fatalf("%q: FromValue has %d fields, ScanFlat %d members", v, len(row), len(ms))
		}
		for _, m := range ms {
			got, present := row[string(m.Name)]
			if !present {
				t.Fatalf("%q: FromValue has no field %q", v, m.Name)
			}
			var want any
			switch m.Kind {
			case String:
				want = string(m.Text)
			case Number:
				want = json.Number(m.Text)
			case True:
				want = true
			case False:
				want = false
			}
			if got != want {
				t.Fatalf("%q: field %q is %#v in the row, %#v by ScanFlat", v, m.Name, got, want)
			}
		}
	})
}
