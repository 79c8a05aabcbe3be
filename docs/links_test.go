// Package docs holds the reference pages; its test checks that every
// relative link in them and in the README resolves.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	linkRE  = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeRE  = regexp.MustCompile("`[^`]*`")
	issueRE = regexp.MustCompile(`(?i)\bissues?\s+#?\d+`)
)

// pages lists the Markdown files the checks cover, relative to the module root.
func pages(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "CHANGELOG.md"}
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatalf("list docs: %v", err)
	}
	for _, d := range docs {
		files = append(files, filepath.Join("docs", d))
	}
	var out []string
	for _, f := range files {
		if _, err := os.Stat(filepath.Join("..", f)); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// prose returns the file's lines outside fenced code blocks, inline code removed.
func prose(text string) []string {
	var out []string
	fenced := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, codeRE.ReplaceAllString(l, ""))
		}
	}
	return out
}

// slug is GitHub's anchor for a heading: lower case, letters, digits,
// spaces, hyphens and underscores kept, spaces made hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown file's headings.
func anchors(text string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	fenced := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(l, "#") {
			continue
		}
		s := slug(strings.TrimSpace(strings.TrimLeft(l, "#")))
		if n := seen[s]; n > 0 {
			out[s+"-"+string(rune('0'+n))] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", rel))
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	return string(b)
}

// TestRelativeLinksResolve fails on a relative link to a file that does not
// exist, or to a heading its Markdown file does not have.
func TestRelativeLinksResolve(t *testing.T) {
	checked := 0
	for _, page := range pages(t) {
		text := read(t, page)
		for _, line := range prose(text) {
			for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				file, anchor, _ := strings.Cut(target, "#")
				rel := page
				if file != "" {
					rel = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(page), file)))
				}
				if _, err := os.Stat(filepath.Join("..", rel)); err != nil {
					t.Errorf("%s: link %q: %s does not exist", page, target, rel)
					continue
				}
				if anchor != "" && strings.HasSuffix(rel, ".md") && !anchors(read(t, rel))[anchor] {
					t.Errorf("%s: link %q: %s has no heading with anchor #%s", page, target, rel, anchor)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d links; the pages should hold more (is the link pattern broken?)", checked)
	}
}

// TestNoIssueNumbers fails on a project issue number in the README,
// the docs or the Makefile: they describe what is, not its history.
func TestNoIssueNumbers(t *testing.T) {
	for _, f := range append(pages(t), "Makefile") {
		for i, line := range strings.Split(read(t, f), "\n") {
			if m := issueRE.FindString(line); m != "" {
				t.Errorf("%s:%d: %q names an issue number", f, i+1, m)
			}
		}
	}
}

// TestSlug pins the anchor rule the link check relies on.
func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Secured clusters (`--kafka-config`)": "secured-clusters---kafka-config",
		"Event Hubs (AMQP)":                   "event-hubs-amqp",
		"The fast loop: `make check`":         "the-fast-loop-make-check",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}
