package fabrictest

// Gomega matchers for Lakehouse (Delta) tables, and HaveRowsMatching for
// rows of any table (Delta or Kusto). The Delta matchers take what the
// Table helpers return: a *delta.Snapshot (Table.Snapshot, or TrySnapshot
// inside Eventually) or the Table itself, which they read when they match.
// On failure they print what they found: version, schema, commits and rows.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/onsi/gomega/gcustom"
	"github.com/onsi/gomega/types"
)

// ------------------------------------------------------------------ rows

// HaveRowsMatching succeeds when the actual rows are exactly as many as the
// expected ones and each expected row matches a different actual row, in any
// order. An expected row names only the fields it checks: an actual row may
// have more columns. Values compare by meaning, whatever the reader: numbers
// numerically (12, int64(12), 12.0 and json.Number("12") are equal), a
// time.Time with an RFC 3339 string for the same instant, nested objects
// like rows (on the members given), arrays element by element, and nil with
// null only. An expected value may also be a gomega matcher
// (BeNumerically(">", 2), ContainSubstring("x")).
//
// It takes Rows (Table.Rows, Env.KustoRows, Eventhouse.Rows), a
// []map[string]any, or a Delta table (*delta.Snapshot or Table). On failure
// it lists the expected rows no actual row matched, the actual rows no
// expected row matched, and what it found.
//
//	Expect(eh.Rows("kind")).To(fabrictest.HaveRowsMatching(
//		map[string]any{"kind": "a,b", "n": 1},
//		map[string]any{"kind": "late", "n": 3},
//	))
func HaveRowsMatching(expected ...map[string]any) types.GomegaMatcher {
	seen := &deltaSeen{}
	rowsOf := func(actual any) ([]map[string]any, error) {
		switch a := actual.(type) {
		case Rows:
			return a, nil
		case []map[string]any:
			return a, nil
		}
		snap, err := seen.read("HaveRowsMatching", actual)
		if err != nil {
			if isNotDelta(err) {
				err = fmt.Errorf("HaveRowsMatching expects fabrictest.Rows, []map[string]any, a *delta.Snapshot or a fabrictest.Table, got %T", actual)
			}
			return nil, err
		}
		return snap.Rows, nil
	}
	var (
		mu   sync.Mutex
		last rowDiff
	)
	funcs := seen.funcs()
	funcs["diff"] = func() rowDiff { mu.Lock(); defer mu.Unlock(); return last }
	funcs["foundAny"] = func(actual any) string {
		switch a := actual.(type) {
		case Rows:
			return summarizeRows(a, "    ")
		case []map[string]any:
			return summarizeRows(a, "    ")
		}
		snap, l := seen.last()
		return "    " + orText(l, "Delta table") + "\n" + describeSnapshot(snap, "    ")
	}
	funcs["row"] = showExpectedRow
	return gcustom.MakeMatcher(func(actual any) (bool, error) {
		rs, err := rowsOf(actual)
		if err != nil {
			return false, err
		}
		d, err := matchRows(expected, rs)
		if err != nil {
			return false, err
		}
		mu.Lock()
		last = d
		mu.Unlock()
		return len(rs) == len(expected) && len(d.Unmatched) == 0 && len(d.Extra) == 0, nil
	}).WithPrecompiledTemplate(newTemplate(`Expected {{len .Data}} row(s) {{if .Failure}}{{else}}not {{end}}matching (in any order, on the fields given):
{{range .Data}}    {{row .}}
{{end}}{{if .Failure}}{{$d := diff}}{{if $d.Skipped}}found {{$d.Found}} row(s); too many to pair up: compare the counts first
{{else}}{{if $d.Unmatched}}no row matched:
{{range $d.Unmatched}}    {{.}}
{{end}}{{end}}{{if $d.Extra}}rows not expected:
{{range $d.Extra}}    {{.}}
{{end}}{{end}}{{end}}{{end}}found:
{{foundAny .Actual}}`, funcs), expected)
}

// rowDiff is what HaveRowsMatching could not pair up.
type rowDiff struct {
	Unmatched []string // expected rows, shown
	Extra     []string // actual rows, shown (at most maxShown, then a count)
	Found     int
	Skipped   bool
}

func showExpectedRow(r map[string]any) string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%q: %s", k, showValue(r[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// showValue renders an expected value: JSON, or a matcher's description.
func showValue(v any) string {
	if m, ok := v.(types.GomegaMatcher); ok {
		return fmt.Sprintf("<%T>", m)
	}
	if t, ok := v.(time.Time); ok {
		return t.Format(time.RFC3339Nano)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// maxPairs bounds the comparisons HaveRowsMatching makes to pair rows.
const maxPairs = 1_000_000

// matchRows pairs expected with actual rows (maximum bipartite matching).
func matchRows(expected, actual []map[string]any) (rowDiff, error) {
	d := rowDiff{Found: len(actual)}
	if len(expected)*len(actual) > maxPairs {
		d.Skipped = true
		return d, nil
	}
	adj := make([][]int, len(expected))
	for i, e := range expected {
		for j, a := range actual {
			ok, err := rowMatches(e, a)
			if err != nil {
				return d, fmt.Errorf("HaveRowsMatching: expected row %s: %w", showExpectedRow(e), err)
			}
			if ok {
				adj[i] = append(adj[i], j)
			}
		}
	}
	owner := make([]int, len(actual)) // actual row → expected row, -1 for none
	for j := range owner {
		owner[j] = -1
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for _, j := range adj[i] {
			if seen[j] {
				continue
			}
			seen[j] = true
			if owner[j] < 0 || try(owner[j], seen) {
				owner[j] = i
				return true
			}
		}
		return false
	}
	matched := make([]bool, len(expected))
	for i := range expected {
		matched[i] = try(i, make([]bool, len(actual)))
	}
	for i, ok := range matched {
		if !ok {
			d.Unmatched = append(d.Unmatched, showExpectedRow(expected[i]))
		}
	}
	extra := 0
	for j, o := range owner {
		if o >= 0 {
			continue
		}
		if extra == maxShown {
			d.Extra = append(d.Extra, "…")
		} else if extra < maxShown {
			d.Extra = append(d.Extra, showRow(actual[j]))
		}
		extra++
	}
	if extra > maxShown {
		d.Extra[len(d.Extra)-1] = fmt.Sprintf("… and %d more", extra-maxShown)
	}
	return d, nil
}

// rowMatches reports whether every field of want matches the same field of
// got (a missing field matches only nil).
func rowMatches(want, got map[string]any) (bool, error) {
	for k, w := range want {
		g, ok := got[k]
		if !ok && w != nil {
			if _, isMatcher := w.(types.GomegaMatcher); !isMatcher {
				return false, nil
			}
		}
		same, err := sameValue(w, g)
		if err != nil || !same {
			return false, err
		}
	}
	return true, nil
}
