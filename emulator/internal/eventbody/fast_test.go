package eventbody

// The Custom endpoint source's produce body (Microsoft's custom endpoint
// takes events as JSON: https://learn.microsoft.com/fabric/real-time-intelligence/event-streams/add-source-custom-app)
// read by fastEvents must give exactly what the strict decoder gives; a
// body fastEvents does not take goes the strict way.

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

var fastEventsSeeds = []string{
	`{"events":[{"key":"k","value":{"a":1}}]}`,
	` { "events" : [ { "value" : { "a" : [ 1 , 2.5e-3 , -0 , true , false , null ] } , "key" : null } ] } `,
	`{"events":[{"value":"text with \"escapes\" \u00e9 \n"},{"value":null},{"value":12},{"value":"é"}]}`,
	`{"events":[{"valueBase64":"AAE=","keyBase64":null,"headers":{"a":"b"},"timestamp":1700000000000}]}`,
	`{"events":[{"value":1,"headers":[{"key":"h","value":null}],"timestamp":"2026-01-02T03:04:05Z"}]}`,
	`{"events":[]}`, `{"events":[{}]}`, `{"events":[{"value":{"a":{"b":{"c":[[[[{}]]]]}}}}]}`,
	`{"events":null}`, `{}`,
	`{"events":[{"value":1}],"x":1}`, `{"events":[{"value":1,"value":2}]}`,
	`{"Events":[{"value":1}]}`, `{"events":[{"Value":1}]}`, `{"events":[{"valu\u0065":1}]}`,
	`{"events":[{"value":01}]}`, `{"events":[{"value":1.}]}`, `{"events":[{"value":"\x"}]}`,
	`{"events":[{"value":"a` + "\x01" + `"}]}`, `{"events":[{"value":"` + "\xff" + `"}]}`,
	`{"events":[{"value":{"a":1,}}]}`, `{"events":[{"value":1}]} {}`, `{"events":[{"value":1}]`,
	`{"events":[{"valueBase64":"A\u0041=="}]}`, `{"events":[{"valueBase64":5}]}`, `{"events":[{"value":tru}]}`,
	`[]`, ``, `{"events":[1]}`,
}

func FuzzFastEvents(f *testing.F) {
	for _, s := range fastEventsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fast, ok := fastEvents(body, new(eventBufs))
		if !ok {
			return // the strict way reads it
		}
		var strict *[]eventIn
		if err := strictEvents(body, &strict); err != nil {
			t.Fatalf("fastEvents took %q, the strict decoder refuses it: %v", body, err)
		}
		if strict == nil || !reflect.DeepEqual(normal(fast), normal(*strict)) {
			t.Fatalf("%q:\nfast   %s\nstrict %v", body, show(fast), strict)
		}
		checkValueNotes(t, fast)
		halved, ok := fastEventsSplit(body, 0, new(eventBufs))
		if !ok || !reflect.DeepEqual(halved, fast) {
			t.Fatalf("%q read in two halves (ok %v):\n%s\nin one:\n%s", body, ok, show(halved), show(fast))
		}
	})
}

// TestFastEventsInHalves: a body read in two halves gives what one pass
// gives, also when the guessed middle is inside a string (then it is read
// in one pass) and when the second half is not valid (then neither is).
func TestFastEventsInHalves(t *testing.T) {
	plain := `{"key":"k","value":{"a":1}}`
	inString := `{"value":"` + strings.Repeat(`x},{`, 500) + `"}`
	for _, tc := range []struct {
		name string
		body string
		ok   bool
	}{
		{"plain", `{"events":[` + strings.Repeat(plain+",", 99) + plain + `]}`, true},
		{"middle in a string", `{"events":[` + strings.Repeat(plain+",", 50) + inString + "," + strings.Repeat(plain+",", 49) + plain + `]}`, true},
		{"second half invalid", `{"events":[` + strings.Repeat(plain+",", 99) + `{"value":01}]}`, false},
		{"first half invalid", `{"events":[{"value":01},` + strings.Repeat(plain+",", 99) + plain + `]}`, false},
		{"trailing data", `{"events":[` + strings.Repeat(plain+",", 99) + plain + `]} x`, false},
	} {
		whole, okWhole := fastEventsSplit([]byte(tc.body), len(tc.body)+1, new(eventBufs))
		halved, okHalved := fastEventsSplit([]byte(tc.body), 0, new(eventBufs))
		if okWhole != tc.ok || okHalved != tc.ok {
			t.Errorf("%s: ok %v in one pass, %v in halves; want %v", tc.name, okWhole, okHalved, tc.ok)
		}
		if !reflect.DeepEqual(whole, halved) {
			t.Errorf("%s: in halves\n%s\nin one pass\n%s", tc.name, show(halved), show(whole))
		}
		if tc.ok && len(halved) != 100 && len(halved) != 101 {
			t.Errorf("%s: %d events", tc.name, len(halved))
		}
	}
}

// checkValueNotes: what fastEvents notes about a value holds, so the
// checks it spares would have passed.
func checkValueNotes(t *testing.T, evs []eventIn) {
	t.Helper()
	for i, ev := range evs {
		if ev.valueCompact {
			var b bytes.Buffer
			if err := json.Compact(&b, ev.Value); err != nil || b.String() != string(ev.Value) {
				t.Errorf("events[%d].value %s noted compact, compacts to %s (%v)", i, ev.Value, b.Bytes(), err)
			}
		}
		if ev.valueFitsRow {
			if err := rows.CheckValue(ev.Value); err != nil || ev.Value[0] != '{' {
				t.Errorf("events[%d].value %s noted as fitting a row: %v", i, ev.Value, err)
			}
		}
	}
}

// TestFastEventsNotesValues: fastEvents notes a compact value and one that
// fits a row, and not a value with white space, nested too deep or with a
// name a row refuses (which rows.CheckValue then reads).
func TestFastEventsNotesValues(t *testing.T) {
	deep := strings.Repeat(`{"a":`, rows.MaxDepth) + "1" + strings.Repeat("}", rows.MaxDepth)
	deeper := strings.Repeat(`{"a":`, rows.MaxDepth+1) + "1" + strings.Repeat("}", rows.MaxDepth+1)
	for _, tc := range []struct {
		value         string
		compact, fits bool
	}{
		{`{"a":1,"b":[1,{"c":"x y"}]}`, true, true},
		{`{"a": 1}`, false, true},
		{deep, true, true},
		{deeper, true, false},
		{`{" ":1}`, true, false},
		{`{"\u0041":1}`, true, false},
		{`{"é":1}`, true, false},
		{`{"a":{"":1}}`, true, false},
		{`[1,2]`, true, false},
		{`"{}"`, true, false},
		{`12`, true, false},
	} {
		evs, ok := fastEvents([]byte(`{"events":[{"value":`+tc.value+`}]}`), new(eventBufs))
		if !ok || len(evs) != 1 {
			t.Fatalf("fastEvents refused the value %s", tc.value)
		}
		if ev := evs[0]; ev.valueCompact != tc.compact || ev.valueFitsRow != tc.fits {
			t.Errorf("value %s: compact %v, fits a row %v; want %v, %v", tc.value, ev.valueCompact, ev.valueFitsRow, tc.compact, tc.fits)
		}
		checkValueNotes(t, evs)
	}
}

// TestFastEventsTakesPlainBodies: the bodies of the benchmark and the
// README's examples take the fast way; odd ones do not.
func TestFastEventsTakesPlainBodies(t *testing.T) {
	for _, s := range fastEventsSeeds[:8] {
		if _, ok := fastEvents([]byte(s), new(eventBufs)); !ok {
			t.Errorf("fastEvents refused %s", s)
		}
	}
	for _, s := range fastEventsSeeds[8:] {
		if _, ok := fastEvents([]byte(s), new(eventBufs)); ok {
			t.Errorf("fastEvents took %q", s)
		}
	}
}

// normal makes empty and nil raw values compare by text.
func normal(evs []eventIn) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		p := func(s *string) string {
			if s == nil {
				return "<nil>"
			}
			return *s
		}
		out[i] = strings.Join([]string{string(e.Key), string(e.Value), p(e.KeyBase64), p(e.ValueBase64), string(e.Headers), string(e.Timestamp)}, "|")
	}
	return out
}

func show(evs []eventIn) string { return strings.Join(normal(evs), "\n") }
