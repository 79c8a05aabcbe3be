package fabrictest

// Gomega matchers for Lakehouse (Delta) tables, and HaveRowsMatching for
// rows of any table (Delta or Kusto). The Delta matchers take what the
// Table helpers return: a *delta.Snapshot (Table.Snapshot, or TrySnapshot
// inside Eventually) or the Table itself, which they read when they match.
// On failure they print what they found: version, schema, commits and rows.

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/template"

	"github.com/onsi/gomega/gcustom"
	"github.com/onsi/gomega/types"

	"github.com/fabrictest/fabrictest/emulator/delta"
)

// deltaSeen keeps what a Delta matcher read when it matched, for its
// failure message (a Table actual is read at match time).
type deltaSeen struct {
	mu    sync.Mutex
	snap  *delta.Snapshot
	label string
}

// notDeltaError is an actual that is no Delta table at all.
type notDeltaError string

func (e notDeltaError) Error() string { return string(e) }

func isNotDelta(err error) bool { var n notDeltaError; return errors.As(err, &n) }

// read turns the actual into a snapshot: a *delta.Snapshot or
// delta.Snapshot as is, a Table read now.
func (s *deltaSeen) read(matcher string, actual any) (*delta.Snapshot, error) {
	var (
		snap  *delta.Snapshot
		label string
	)
	switch a := actual.(type) {
	case *delta.Snapshot:
		if a == nil {
			return nil, fmt.Errorf("%s: the snapshot is nil (was the table read with an error?)", matcher)
		}
		snap, label = a, "Delta table"
		if a.TableID != "" {
			label += " " + a.TableID
		}
	case delta.Snapshot:
		return s.read(matcher, &a)
	case Table:
		var err error
		if snap, err = a.TrySnapshot(); err != nil {
			return nil, err
		}
		label = a.String()
	default:
		return nil, notDeltaError(fmt.Sprintf("%s expects a *delta.Snapshot (Table.Snapshot, Table.TrySnapshot) or a fabrictest.Table, got %T", matcher, actual))
	}
	s.mu.Lock()
	s.snap, s.label = snap, label
	s.mu.Unlock()
	return snap, nil
}

func (s *deltaSeen) last() (*delta.Snapshot, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snap, s.label
}

// funcs are the template functions of a Delta matcher's message: table (the
// label), found (the snapshot described) and columns (its column names).
func (s *deltaSeen) funcs() template.FuncMap {
	return template.FuncMap{
		"table": func() string { _, l := s.last(); return orText(l, "Delta table") },
		"found": func() string {
			snap, _ := s.last()
			return describeSnapshot(snap, "    ")
		},
		"rowCount": func() int {
			if snap, _ := s.last(); snap != nil {
				return len(snap.Rows)
			}
			return 0
		},
		"commitCount": func() int {
			if snap, _ := s.last(); snap != nil {
				return len(snap.Commits)
			}
			return 0
		},
		"version": func() int64 {
			if snap, _ := s.last(); snap != nil {
				return snap.Version
			}
			return -1
		},
		"columns": func() []string {
			if snap, _ := s.last(); snap != nil {
				return snap.Schema.Names()
			}
			return nil
		},
	}
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// describeSnapshot renders a table for a failure message: version, schema,
// commits (at most 20) and rows (at most 20).
func describeSnapshot(s *delta.Snapshot, indent string) string {
	if s == nil {
		return indent + "<no table read>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%sversion %d, %d commit(s), %d row(s) in %d file(s)\n", indent, s.Version, len(s.Commits), len(s.Rows), len(s.Files))
	fmt.Fprintf(&b, "%sschema: %s\n", indent, s.Schema)
	fmt.Fprintf(&b, "%scommits:\n", indent)
	for i, c := range s.Commits {
		if i == maxShown {
			fmt.Fprintf(&b, "%s  … and %d more\n", indent, len(s.Commits)-maxShown)
			break
		}
		fmt.Fprintf(&b, "%s  v%d %s: +%d row(s) in %d file(s)", indent, c.Version, c.Operation, c.AddedRows, c.AddedFiles)
		if c.SchemaChanged {
			b.WriteString(", schema changed")
		}
		for _, t := range c.Txns {
			fmt.Fprintf(&b, ", txn %s=%d", t.AppID, t.Version)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%srows:\n%s", indent, summarizeRows(s.Rows, indent+"  "))
	return b.String()
}

// HaveDeltaRows succeeds when the Delta table (a *delta.Snapshot, or a
// Table read at match time) holds exactly n rows at its latest version. On
// failure it prints the table: version, schema, commits and rows.
//
//	Expect(lh.Table("orders")).To(fabrictest.HaveDeltaRows(12))
//	Eventually(lh.Table("orders").TrySnapshot).Should(fabrictest.HaveDeltaRows(12))
func HaveDeltaRows(n int) types.GomegaMatcher {
	return snapshotMatcher("HaveDeltaRows", func(s *delta.Snapshot) bool { return len(s.Rows) == n },
		"Expected {{table}} to have {{if .Failure}}{{else}}anything but {{end}}{{.Data}} row(s), found {{rowCount}}:\n{{found}}", n)
}

// HaveCommits succeeds when the Delta table has exactly n versions (0 to
// n-1): one per batch a destination delivered, plus none for a retry that
// found its txn already committed. On failure it prints the table.
func HaveCommits(n int) types.GomegaMatcher {
	return snapshotMatcher("HaveCommits", func(s *delta.Snapshot) bool { return len(s.Commits) == n },
		"Expected {{table}} to have {{if .Failure}}{{else}}anything but {{end}}{{.Data}} commit(s), found {{commitCount}}:\n{{found}}", n)
}

// HaveVersion succeeds when the Delta table's latest version is v. On
// failure it prints the table.
func HaveVersion(v int64) types.GomegaMatcher {
	return snapshotMatcher("HaveVersion", func(s *delta.Snapshot) bool { return s.Version == v },
		"Expected {{table}} to be {{if .Failure}}{{else}}anything but {{end}}at version {{.Data}}, found version {{version}}:\n{{found}}", v)
}

// snapshotMatcher is a matcher on a Delta table read at match time, whose
// failure message template can print what was read.
func snapshotMatcher(name string, ok func(*delta.Snapshot) bool, template string, data any) types.GomegaMatcher {
	seen := &deltaSeen{}
	return gcustom.MakeMatcher(func(actual any) (bool, error) {
		snap, err := seen.read(name, actual)
		if err != nil {
			return false, err
		}
		return ok(snap), nil
	}).WithPrecompiledTemplate(newTemplate(template, seen.funcs()), data)
}

// HaveColumns succeeds when the table's top-level columns are exactly names,
// in any order (a new Delta table orders its columns by name; see
// delta.Schema.Names for the order). It takes a Delta table (*delta.Snapshot
// or Table) or Rows, whose columns are the keys its rows have. On failure it
// says which columns are missing and which were not expected, and prints the
// table.
func HaveColumns(names ...string) types.GomegaMatcher {
	seen := &deltaSeen{}
	columnsOf := func(actual any) ([]string, error) {
		switch a := actual.(type) {
		case Rows:
			return rowKeys(a), nil
		case []map[string]any:
			return rowKeys(a), nil
		}
		snap, err := seen.read("HaveColumns", actual)
		if err != nil {
			if isNotDelta(err) {
				err = fmt.Errorf("HaveColumns expects a *delta.Snapshot, a fabrictest.Table or fabrictest.Rows, got %T", actual)
			}
			return nil, err
		}
		return snap.Schema.Names(), nil
	}
	diff := func(got []string) (missing, extra []string) {
		for _, n := range names {
			if !slices.Contains(got, n) {
				missing = append(missing, n)
			}
		}
		for _, g := range got {
			if !slices.Contains(names, g) {
				extra = append(extra, g)
			}
		}
		return
	}
	funcs := seen.funcs()
	funcs["gotColumns"] = func(actual any) []string {
		switch a := actual.(type) {
		case Rows:
			return rowKeys(a)
		case []map[string]any:
			return rowKeys(a)
		}
		snap, _ := seen.last()
		if snap == nil {
			return nil
		}
		return snap.Schema.Names()
	}
	funcs["colDiff"] = func(got []string) map[string][]string {
		m, e := diff(got)
		return map[string][]string{"missing": m, "extra": e}
	}
	funcs["foundAny"] = func(actual any) string {
		switch a := actual.(type) {
		case Rows:
			return summarizeRows(a, "    ")
		case []map[string]any:
			return summarizeRows(a, "    ")
		}
		snap, _ := seen.last()
		return describeSnapshot(snap, "    ")
	}
	funcs["what"] = func(actual any) string {
		switch actual.(type) {
		case Rows, []map[string]any:
			return "rows"
		}
		_, l := seen.last()
		return orText(l, "Delta table")
	}
	return gcustom.MakeMatcher(func(actual any) (bool, error) {
		got, err := columnsOf(actual)
		if err != nil {
			return false, err
		}
		m, e := diff(got)
		return len(m) == 0 && len(e) == 0, nil
	}).WithPrecompiledTemplate(newTemplate(`Expected the columns of {{what .Actual}} {{if .Failure}}{{else}}not {{end}}to be exactly (in any order) {{.Data}}, found {{gotColumns .Actual}}
{{- if .Failure}}{{$d := colDiff (gotColumns .Actual)}}{{if $d.missing}}
    missing: {{join $d.missing}}{{end}}{{if $d.extra}}
    not expected: {{join $d.extra}}{{end}}{{end}}
{{foundAny .Actual}}`, funcs, template.FuncMap{"join": func(s []string) string { return strings.Join(s, ", ") }}), names)
}

// rowKeys is the sorted union of the rows' keys.
func rowKeys(rs []map[string]any) []string {
	set := map[string]bool{}
	for _, r := range rs {
		for k := range r {
			set[k] = true
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
