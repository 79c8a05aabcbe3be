package archtest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestModuleFollowsDependencyRules checks every package of the module
// against the rule table of docs/architecture.md.
func TestModuleFollowsDependencyRules(t *testing.T) {
	m, err := loadModule(".")
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(m.root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rules, excs, err := parseDoc(string(text))
	if err != nil {
		t.Fatalf("docs/architecture.md: %v", err)
	}
	for _, p := range unknownPatterns(rules, m) {
		t.Errorf("pattern %s matches no package and names no existing folder: misspelt?", p)
	}
	violations, stale := check(rules, excs, m.sorted())
	for _, v := range violations {
		t.Errorf("forbidden import: %s", v)
	}
	for _, e := range stale {
		t.Errorf("known exception no longer needed: %s imports %s (docs/architecture.md:%d): remove its row",
			e.pkg, e.imp, e.line)
	}
	for _, r := range rules {
		n := 0
		for _, p := range m.pkgs {
			if _, ok := matchAny(r.packages, p.path); ok {
				n++
			}
		}
		t.Logf("rule %q: %d packages checked", r.name, n)
	}
}
