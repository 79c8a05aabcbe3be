package archtest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// violation is one import that breaks a rule.
type violation struct {
	rule    rule
	pkg     string
	imp     string
	inTests bool // only the package's test files import it
}

// String names the rule, the package and the import.
func (v violation) String() string {
	where := ""
	if v.inTests {
		where = " (in its tests)"
	}
	return fmt.Sprintf("%s imports %s%s: breaks %q (docs/architecture.md:%d)",
		v.pkg, v.imp, where, v.rule.name, v.rule.line)
}

// check returns the imports of pkgs that break rules and are not excepted,
// and the exceptions no import needs any more.
func check(rules []rule, excs []exception, pkgs []*pkg) ([]violation, []exception) {
	used := make([]bool, len(excs))
	var out []violation
	for _, r := range rules {
		for _, p := range pkgs {
			own, ok := matchAny(r.packages, p.path)
			if !ok {
				continue
			}
			for _, imp := range importsOf(p, r.tests) {
				if _, bad := matchAny(r.forbidden, imp); !bad || matches(own, imp) {
					continue
				}
				if i := excepted(excs, p.path, imp); i >= 0 {
					used[i] = true
					continue
				}
				out = append(out, violation{rule: r, pkg: p.path, imp: imp, inTests: !p.code[imp]})
			}
		}
	}
	var stale []exception
	for i, e := range excs {
		if !used[i] {
			stale = append(stale, e)
		}
	}
	return out, stale
}

// importsOf returns the imports of p's code, with its tests' imports when
// tests is set, sorted.
func importsOf(p *pkg, tests bool) []string {
	set := map[string]bool{}
	for i := range p.code {
		set[i] = true
	}
	if tests {
		for i := range p.tests {
			set[i] = true
		}
	}
	out := make([]string, 0, len(set))
	for i := range set {
		out = append(out, i)
	}
	sort.Strings(out)
	return out
}

// excepted returns the index of the exception for pkg importing imp, or -1.
func excepted(excs []exception, pkg, imp string) int {
	for i, e := range excs {
		if e.pkg == pkg && e.imp == imp {
			return i
		}
	}
	return -1
}

// unknownPatterns returns the module patterns of rules that match no
// package and whose parent folder does not exist either: a misspelt path,
// not a package yet to be written.
func unknownPatterns(rules []rule, m *module) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rules {
		for _, p := range append(append([]string{}, r.packages...), r.forbidden...) {
			if seen[p] || !(p == "." || strings.HasPrefix(p, "./")) {
				continue
			}
			seen[p] = true
			if !m.matchesAny(p) && !m.parentExists(p) {
				out = append(out, fmt.Sprintf("%s (docs/architecture.md:%d)", p, r.line))
			}
		}
	}
	return out
}

// matchesAny reports whether a package of m matches pattern.
func (m *module) matchesAny(pattern string) bool {
	for path := range m.pkgs {
		if matches(pattern, path) {
			return true
		}
	}
	return false
}

// parentExists reports whether the folder that would hold pattern's
// package exists in the module.
func (m *module) parentExists(pattern string) bool {
	base, _ := strings.CutSuffix(pattern, "/...")
	dir := filepath.Join(m.root, filepath.FromSlash(filepath.Dir(base)))
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}
