package archtest

import (
	"errors"
	"fmt"
	"strings"
)

// rule forbids packages matching packages to import anything matching
// forbidden; tests says whether test files are checked too.
type rule struct {
	name      string
	packages  []string
	forbidden []string
	tests     bool
	line      int // line of the row in the page, for messages
}

// exception allows one import that breaks a rule today.
type exception struct {
	pkg, imp, why string
	line          int
}

// The header rows that name the two tables of the page.
var (
	rulesHeader      = []string{"rule", "packages", "must not import", "files"}
	exceptionsHeader = []string{"package", "import", "why"}
)

// errNoRules is returned for a page without a rule table.
var errNoRules = errors.New("no rule table (| rule | packages | must not import | files |)")

// parseDoc reads the rule table and the known-exceptions table of the
// architecture page. Every row must be well formed: a page the check cannot
// read is an error, never an empty rule set.
func parseDoc(text string) ([]rule, []exception, error) {
	var rules []rule
	var excs []exception
	seenRules, seenExcs := false, false
	for _, t := range tables(text) {
		switch {
		case equalCells(t.header, rulesHeader):
			if seenRules {
				return nil, nil, fmt.Errorf("line %d: a second rule table", t.start)
			}
			seenRules = true
			for i, row := range t.rows {
				r, err := parseRule(row, t.start+2+i)
				if err != nil {
					return nil, nil, err
				}
				rules = append(rules, r)
			}
		case equalCells(t.header, exceptionsHeader):
			if seenExcs {
				return nil, nil, fmt.Errorf("line %d: a second exceptions table", t.start)
			}
			seenExcs = true
			for i, row := range t.rows {
				e, err := parseException(row, t.start+2+i)
				if err != nil {
					return nil, nil, err
				}
				excs = append(excs, e)
			}
		}
	}
	if len(rules) == 0 {
		return nil, nil, errNoRules
	}
	return rules, excs, nil
}

// parseRule reads one row of the rule table.
func parseRule(cells []string, line int) (rule, error) {
	if len(cells) != len(rulesHeader) {
		return rule{}, fmt.Errorf("line %d: want %d cells, got %d", line, len(rulesHeader), len(cells))
	}
	r := rule{name: cells[0], line: line}
	if r.name == "" {
		return rule{}, fmt.Errorf("line %d: the rule has no name", line)
	}
	var err error
	if r.packages, err = parsePatterns(cells[1], true); err != nil {
		return rule{}, fmt.Errorf("line %d: packages: %w", line, err)
	}
	if r.forbidden, err = parsePatterns(cells[2], false); err != nil {
		return rule{}, fmt.Errorf("line %d: must not import: %w", line, err)
	}
	switch cells[3] {
	case "code":
	case "code and tests":
		r.tests = true
	default:
		return rule{}, fmt.Errorf("line %d: files %q: want \"code\" or \"code and tests\"", line, cells[3])
	}
	return r, nil
}

// parseException reads one row of the known-exceptions table.
func parseException(cells []string, line int) (exception, error) {
	if len(cells) != len(exceptionsHeader) {
		return exception{}, fmt.Errorf("line %d: want %d cells, got %d", line, len(exceptionsHeader), len(cells))
	}
	pkg, err := parsePatterns(cells[0], true)
	if err != nil || len(pkg) != 1 || strings.HasSuffix(pkg[0], "...") {
		return exception{}, fmt.Errorf("line %d: package: want one package of the module, got %q", line, cells[0])
	}
	imp, err := parsePatterns(cells[1], false)
	if err != nil || len(imp) != 1 || strings.HasSuffix(imp[0], "...") {
		return exception{}, fmt.Errorf("line %d: import: want one import path, got %q", line, cells[1])
	}
	if cells[2] == "" {
		return exception{}, fmt.Errorf("line %d: an exception needs a reason", line)
	}
	return exception{pkg: pkg[0], imp: imp[0], why: cells[2], line: line}, nil
}

// parsePatterns reads a cell of comma-separated patterns, each in
// backquotes. With moduleOnly, every pattern must be a module path.
func parsePatterns(cell string, moduleOnly bool) ([]string, error) {
	var out []string
	for part := range strings.SplitSeq(cell, ",") {
		part = strings.TrimSpace(part)
		p, ok := strings.CutPrefix(part, "`")
		if !ok {
			return nil, fmt.Errorf("%q is not a `pattern`", part)
		}
		if p, ok = strings.CutSuffix(p, "`"); !ok || strings.Contains(p, "`") {
			return nil, fmt.Errorf("%q is not a `pattern`", part)
		}
		if err := checkPattern(p, moduleOnly); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// checkPattern refuses patterns the matcher would read differently from
// what they seem to say.
func checkPattern(p string, moduleOnly bool) error {
	module := p == "." || strings.HasPrefix(p, "./")
	switch {
	case p == "" || strings.ContainsAny(p, " \t\\"):
		return fmt.Errorf("pattern %q: empty or has spaces", p)
	case moduleOnly && !module:
		return fmt.Errorf("pattern %q: want a module path (./…)", p)
	case !module && (strings.HasPrefix(p, "/") || strings.HasPrefix(p, ".")):
		return fmt.Errorf("pattern %q: a module path starts with ./", p)
	case strings.HasSuffix(p, "/") || strings.Contains(p, "//"):
		return fmt.Errorf("pattern %q: empty path element", p)
	}
	rest, _ := strings.CutSuffix(p, "/...")
	if strings.Contains(rest, "...") || (rest != "." && strings.Contains(rest, "/./")) {
		return fmt.Errorf("pattern %q: \"...\" only as the last element", p)
	}
	return nil
}
