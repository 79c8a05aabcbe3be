package pipeline

import (
	"runtime"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// TestFunctionResultsAreBounded: a Replace or Concat whose result would be
// larger than one event may be is a failure (null, counted), found before
// anything that size is allocated (issue 13, finding 2).
func TestFunctionResultsAreBounded(t *testing.T) {
	over := rows.MaxEventBytes/1000 + 1
	for _, tc := range []struct {
		name string
		fn   ScalarFunc
		args []any
	}{
		{"replace", FnReplace, []any{strings.Repeat("a", 2000), "a", strings.Repeat("b", over)}},
		{"concat", FnConcat, []any{strings.Repeat("a", rows.MaxEventBytes), "b"}},
		{"upper", FnUpper, []any{strings.Repeat("ɐ", rows.MaxEventBytes/2)}}, // 2 bytes → 3 bytes each
	} {
		v, ok := callScalar(tc.fn, tc.args)
		if ok || v != nil {
			n := 0
			if s, isStr := v.(string); isStr {
				n = len(s)
			}
			t.Errorf("%s: got a %d-byte result (ok=%v), want a failure above %d bytes", tc.name, n, ok, rows.MaxEventBytes)
		}
	}
	// Right at the limit still works.
	if v, ok := callScalar(FnConcat, []any{strings.Repeat("a", rows.MaxEventBytes-1), "b"}); !ok || len(v.(string)) != rows.MaxEventBytes {
		t.Errorf("concat at the limit: ok=%v", ok)
	}
}

// TestHostileReplaceAllocatesLittle is the event: s = 500,000 × "a"
// with 400,000 × "b" for each "a" asks for 200 GB unless refused first.
func TestHostileReplaceAllocatesLittle(t *testing.T) {
	p := mustPipeline(t, `[{"type":"ManageFields","compute":[{"fn":"Replace","args":[{"field":"s"},{"literal":"a"},{"field":"r"}],"as":"out"}]}]`)
	ev := Event{Row: rows.Row{"s": strings.Repeat("a", 500_000), "r": strings.Repeat("b", 400_000)}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out := p.Process([]Event{ev})
	runtime.ReadMemStats(&after)
	if len(out) != 1 || out[0]["out"] != nil {
		t.Fatalf("want the row with out = null, got %d rows", len(out))
	}
	if got := p.Stats().FunctionFailures; got != 1 {
		t.Errorf("FunctionFailures = %d, want 1", got)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("allocated %d bytes for a refused Replace", grew)
	}
}
