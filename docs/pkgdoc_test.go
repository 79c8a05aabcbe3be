package docs

import (
	"strings"
	"testing"
)

// packageDocTest returns the test function fabrictest's package doc opens
// with: its first indented block, the comment markers removed.
func packageDocTest(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	in := false
	for _, l := range strings.Split(read(t, "fabrictest/doc.go"), "\n") {
		code, ok := strings.CutPrefix(l, "//\t")
		if !ok {
			if in {
				break
			}
			continue
		}
		in = true
		b.WriteString(code + "\n")
	}
	return b.String()
}

// TestPackageDocTestIsRun fails unless the test fabrictest's package doc
// opens with is, word for word, a Go block a page marks runnable, so that
// TestRunnableBlocks runs what pkg.go.dev shows first.
func TestPackageDocTestIsRun(t *testing.T) {
	doc := packageDocTest(t)
	if !strings.HasPrefix(doc, "func Test") {
		t.Fatalf("fabrictest/doc.go does not open with a test function; its first block:\n%s", doc)
	}
	for _, b := range allBlocks(t) {
		if b.run && b.lang == "go" && b.text == doc {
			return
		}
	}
	t.Errorf("no runnable Go block in the pages is the package doc's test:\n%s", doc)
}
