package delta_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// nest builds an event whose objects and arrays nest exactly depth levels,
// its own object counted, with the inner levels of the given shape:
// "object" ({"a":…}), "array" ([…]) or "mixed" ({"a":[…]} in turn).
func nest(shape string, depth int) string {
	v := "1"
	for i := 1; i < depth; i++ {
		switch {
		case shape == "array", shape == "mixed" && i%2 == 1:
			v = "[" + v + "]"
		default:
			v = `{"a":` + v + "}"
		}
	}
	return `{"x":` + v + "}"
}

// TestDepthLimitReadableByDeltaRS: rows nested exactly rows.MaxDepth deep,
// of every shape, make tables delta-rs reads; one level more is refused
// with a *RowLimitError before anything is written (issue 13, finding 5).
func TestDepthLimitReadableByDeltaRS(t *testing.T) {
	for _, shape := range []string{"object", "array", "mixed"} {
		t.Run(shape, func(t *testing.T) {
			dir := tableDir(t)
			tbl := mustOpen(t, dir)
			mustAppend(t, tbl, jsonRows(t, nest(shape, rows.MaxDepth)))
			snap := checkTable(t, dir)
			if len(snap.Rows) != 1 {
				t.Fatalf("%d rows, want 1", len(snap.Rows))
			}
			_, err := tbl.Append(context.Background(), jsonRows(t, `{"x":null}`, nest(shape, rows.MaxDepth+1)))
			var le *delta.RowLimitError
			if !errors.As(err, &le) || le.Row != 1 || !strings.HasPrefix(le.Err.Path, "x") {
				t.Fatalf("err = %v, want a *RowLimitError for row 1 at x…", err)
			}
			if tbl.Version() != 0 {
				t.Fatalf("version %d after a refused batch, want 0", tbl.Version())
			}
		})
	}
}

// TestHostileRowsAreRefused: the events are refused with a
// *RowLimitError naming the field, never a panic (findings 1 and 5).
func TestHostileRowsAreRefused(t *testing.T) {
	for _, tc := range []struct{ row, path string }{
		{strings.Repeat(`{"a":[`, 86) + "1" + strings.Repeat("]}", 86), "a[].a[]"},
		{strings.Repeat(`{"a":`, 256) + "1" + strings.Repeat("}", 256), "a.a.a"},
		{strings.Repeat(`{"a":`, 50) + "1" + strings.Repeat("}", 50), "a.a.a"},
		{`{"\u0000":1}`, ""},
		{`{"":1}`, ""},
		{`{" ":2}`, ""},
		{`{"a\tb":1}`, ""},
		{`{"s":{"line\nbreak":1}}`, "s"},
		{`{"s":[{"\u0085":1}]}`, "s[]"},
	} {
		tbl := mustOpen(t, tableDir(t))
		_, err := tbl.Append(context.Background(), jsonRows(t, tc.row))
		var le *delta.RowLimitError
		if !errors.As(err, &le) || !strings.HasPrefix(le.Err.Path, tc.path) {
			t.Errorf("%.40s: err = %v, want a *RowLimitError at %q", tc.row, err, tc.path)
		}
	}
}
