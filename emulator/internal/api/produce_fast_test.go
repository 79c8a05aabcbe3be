package api

// The Custom endpoint source's produce body (Microsoft's custom endpoint
// takes events as JSON: https://learn.microsoft.com/fabric/real-time-intelligence/event-streams/add-source-custom-app)
// read by fastEvents must give exactly what the strict decoder gives; a
// body fastEvents does not take goes the strict way.

import (
	"reflect"
	"strings"
	"testing"
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
		fast, ok := fastEvents(body)
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
	})
}

// TestFastEventsTakesPlainBodies: the bodies of the benchmark and the
// README's examples take the fast way; odd ones do not.
func TestFastEventsTakesPlainBodies(t *testing.T) {
	for _, s := range fastEventsSeeds[:8] {
		if _, ok := fastEvents([]byte(s)); !ok {
			t.Errorf("fastEvents refused %s", s)
		}
	}
	for _, s := range fastEventsSeeds[8:] {
		if _, ok := fastEvents([]byte(s)); ok {
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
