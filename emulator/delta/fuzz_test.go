package delta_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// FuzzRowToDelta turns two arbitrary record values into rows (package
// rows' rule) and appends them to a new table, one commit each: Append
// never panics, refuses exactly the rows beyond rows' limits (with a
// *RowLimitError), fails otherwise only with the schema errors it
// documents, and the Go reader reads back every row written; a row whose
// values need no conversion reads back as it was written (issue 13).
func FuzzRowToDelta(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"id":1,"s":"x","d":2.5,"b":true,"ts":"2026-01-01T00:00:00Z","o":{"k":[1,2]}}`, `{"id":"conflict"}`},
		{`{"id":1,"s":"x","d":2.5,"b":true,"o":{"k":[1,2],"n":null}}`, `{"id":2,"o":{"k":[3]}}`},
		{`{"A":1,"a":"s"}`, `{"":1," ":2}`},
		{`{"\u0000":1}`, `{"ok":{"line\nbreak":1}}`},
		{strings.Repeat(`{"a":[`, 86) + "1" + strings.Repeat("]}", 86), strings.Repeat(`{"a":`, 256) + "1" + strings.Repeat("}", 256)},
		{strings.Repeat(`{"a":`, 50) + "1" + strings.Repeat("}", 50), strings.Repeat(`{"a":`, 32) + "1" + strings.Repeat("}", 32)},
		{`{"x":[[],[null],[[1]]],"y":{}}`, `{"x":[[1,"a"]],"y":{"z":1}}`},
		{`{"n":18446744073709551616,"m":1e400,"e":1e3}`, `{"n":-0.0}`},
		{`{"a b":1,"a_b":2}`, `{"Id":1}`},
		{`[1,2]`, "\xff\x00"},
		{`{}`, `{"a":null}`},
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	f.Fuzz(func(t *testing.T, v1, v2 []byte) {
		tbl, err := delta.Open(tableDir(t), delta.WithoutFsync())
		if err != nil {
			t.Fatal(err)
		}
		written := 0
		for i, v := range [][]byte{v1, v2} {
			r := rows.FromValue(v)
			_, err := tbl.Append(context.Background(), []rows.Row{r})
			limitErr := rows.Check(r)
			var le *delta.RowLimitError
			var de *delta.DuplicateFieldError
			var ce *delta.SchemaConflictError
			switch {
			case limitErr != nil:
				if !errors.As(err, &le) {
					t.Fatalf("value %d breaks a limit (%v) but Append says %v", i, limitErr, err)
				}
				continue
			case err == nil:
				written++
			case errors.As(err, &le):
				t.Fatalf("value %d passes rows.Check but Append says %v", i, err)
			case errors.As(err, &de), errors.As(err, &ce), errors.Is(err, delta.ErrNoColumns):
				continue
			default:
				t.Fatalf("value %d: Append: %v", i, err)
			}
			snap, err := delta.ReadTable(tbl.Dir())
			if err != nil {
				t.Fatalf("read back: %v", err)
			}
			if len(snap.Rows) != written {
				t.Fatalf("%d rows read back, %d written", len(snap.Rows), written)
			}
			if written == 1 && plain(r) && !strings.Contains(snap.Schema.String(), "timestamp") {
				if want, ok := canonOf(r, snap.Schema); ok {
					got := canonList(t, snap.Rows, snap.Schema)
					if got[0] != want {
						t.Fatalf("read back\n %s\nwrote\n %s", got[0], want)
					}
				}
			}
		}
	})
}

// plain tells whether every member name of a row is its column's name
// (no character that becomes '_').
func plain(v any) bool {
	switch x := v.(type) {
	case rows.Row:
		return plain(map[string]any(x))
	case map[string]any:
		for k, e := range x {
			if strings.ContainsAny(k, " ,;{}()=") || !plain(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !plain(e) {
				return false
			}
		}
	}
	return true
}

// canonOf is the canonical text of a row under a schema, when its values
// are already of the schema's types.
func canonOf(r rows.Row, s delta.Schema) (string, bool) {
	c, err := canon(map[string]any(r), delta.StructOf(s.Fields...))
	if err != nil {
		return "", false
	}
	return mustJSON(c), true
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
