package pipeline

import (
	"errors"
	"strings"
	"testing"
)

// TestNewOperatorsFormatRoundTrip: the canonical form of every new
// operator and window parses back to the same operators (the emulator
// stores operators in this form and a restore compares fingerprints).
func TestNewOperatorsFormatRoundTrip(t *testing.T) {
	docs := []string{
		`[{"type":"Expand","field":"tags","ignoreMissingOrEmpty":false}]`,
		`[{"type":"GroupBy","keys":["k"],"aggregates":[{"fn":"count"}],"window":{"kind":"sliding","duration":"10s","on":"ts"}}]`,
		`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"session","timeout":"5s","maxDuration":"1m","partitionBy":"k"}}]`,
		`[{"type":"GroupBy","aggregates":[{"fn":"count"}],"window":{"kind":"Snapshot"}}]`,
		`[{"type":"Union","inputs":[[],[{"type":"Filter","condition":{"field":"a","op":"exists"}}],
			[{"type":"Window","kind":"tumbling","duration":"1m"},{"type":"GroupBy","aggregates":[{"fn":"count"}]}]]}]`,
		`[{"type":"Join","joinType":"LeftOuter","joinOn":[{"left":"a","right":"b"}],"duration":{"value":1,"unit":"Minute"},
			"allowedLateness":"5s","inputs":[[],[{"type":"Expand","field":"x"}]]}]`,
	}
	for _, doc := range docs {
		first, err := Format(mustParse(t, doc))
		if err != nil {
			t.Fatal(err)
		}
		second, err := Format(mustParse(t, string(first)))
		if err != nil {
			t.Fatal(err)
		}
		if string(first) != string(second) {
			t.Errorf("%s:\n%s\n%s", doc, first, second)
		}
	}
}

// TestNestedRestoreRefusesBadState: a snapshot whose held events or
// nested state do not fit the operators is refused, and the pipeline is
// left as it was.
func TestNestedRestoreRefusesBadState(t *testing.T) {
	const ops = `[{"type":"Join","joinType":"Inner","duration":"10s","inputs":[[
		{"type":"GroupBy","aggregates":[{"fn":"count","as":"n"}],"window":{"kind":"session","timeout":"5s","maxDuration":"1m","on":"ts"}}],[]]}]`
	p := mustPipeline(t, ops)
	p.Process([]Event{tev(0, 0, `"v":1`), tev(3, 1, `"v":2`)})
	snap, err := p.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	s := string(snap)
	if !strings.Contains(s, `"nested":[{"stage":0`) || !strings.Contains(s, `"buffers":[{"stage":0`) {
		t.Fatalf("snapshot lacks the nested state: %s", s)
	}
	for name, bad := range map[string]string{
		"nested stage":   strings.Replace(s, `"nested":[{"stage":0`, `"nested":[{"stage":3`, 1),
		"buffer stage":   strings.Replace(s, `"buffers":[{"stage":0`, `"buffers":[{"stage":2`, 1),
		"no join rows":   strings.Replace(s, `"join":{`, `"joinx":{`, 1),
		"events order":   strings.Replace(s, `"items":[{"t":`, `"items":[{"t":9000000000000000000,"row":{}},{"t":`, 1),
		"inputs missing": strings.Replace(s, `"inputs":[{`, `"inputs":[],"x":[{`, 1),
	} {
		q := mustPipeline(t, ops)
		err := q.Restore([]byte(bad))
		if !errors.Is(err, ErrSnapshotMismatch) {
			t.Errorf("%s: %v", name, err)
		}
	}
	q := mustPipeline(t, ops)
	if err := q.Restore(snap); err != nil {
		t.Fatal(err)
	}
	again, _ := q.Snapshot()
	if string(again) != s {
		t.Errorf("restored state differs:\n%s\n%s", s, again)
	}
}
