package docs

import (
	"fmt"
	"regexp"
	"strings"
)

// block is one fenced code block of a page, with the marker before it.
type block struct {
	page    string   // module-relative path of the page
	line    int      // 1-based line of the opening fence
	lang    string   // the fence's info string: sh, python, go, …
	run     bool     // marked <!-- run … -->
	notRun  string   // the reason of <!-- not run: … -->
	expects []string // texts the output must hold: the marker's expect "…" and an <!-- output --> block
	text    string   // the code
}

// name is how a test and its failures refer to the block.
func (b block) name() string { return fmt.Sprintf("%s:%d", b.page, b.line) }

// executable reports whether the block is in a language the docs test runs,
// and so must carry a run or a not-run marker.
func (b block) executable() bool {
	switch b.lang {
	case "sh", "bash", "python", "go":
		return true
	}
	return false
}

var (
	runRE    = regexp.MustCompile(`^<!--\s*run(?::\s*(.*?))?\s*-->$`)
	notRunRE = regexp.MustCompile(`^<!--\s*not run:\s*(.+?)\s*-->$`)
	outRE    = regexp.MustCompile(`^<!--\s*output\s*-->$`)
	expectRE = regexp.MustCompile(`^expect((?:\s+"(?:[^"\\]|\\.)*")+)$`)
	quotedRE = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
)

// parseBlocks returns the fenced blocks of a page with their markers. A
// marker is an HTML comment on the line right before the fence (GitHub
// renders it as nothing):
//
//	<!-- run -->                          run it; it must exit 0
//	<!-- run: expect "a" "b" -->          and print every quoted text
//	<!-- not run: needs Docker -->        the reason it is not run here
//
// A fence preceded by <!-- output --> right after a run block is that
// block's expected output: each of its non-blank lines must be printed.
func parseBlocks(page, text string) ([]block, error) {
	lines := strings.Split(text, "\n")
	var out []block
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "```") {
			continue
		}
		b := block{page: page, line: i + 1, lang: strings.TrimSpace(strings.TrimPrefix(l, "```"))}
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("%s: fence never closed", b.name())
		}
		b.text = strings.Join(lines[i+1:end], "\n") + "\n"
		prev := ""
		if i > 0 {
			prev = strings.TrimSpace(lines[i-1])
		}
		if err := b.mark(prev); err != nil {
			return nil, err
		}
		if outRE.MatchString(prev) {
			if len(out) == 0 || !out[len(out)-1].run {
				return nil, fmt.Errorf("%s: an output block must follow a run block", b.name())
			}
			out[len(out)-1].expects = append(out[len(out)-1].expects, nonBlank(b.text)...)
			i = end
			continue
		}
		out = append(out, b)
		i = end
	}
	return out, nil
}

// mark reads the marker line before the block's fence into it.
func (b *block) mark(prev string) error {
	if m := notRunRE.FindStringSubmatch(prev); m != nil {
		b.notRun = m[1]
		return nil
	}
	m := runRE.FindStringSubmatch(prev)
	if m == nil {
		return nil
	}
	b.run = true
	if m[1] == "" {
		return nil
	}
	e := expectRE.FindStringSubmatch(m[1])
	if e == nil {
		return fmt.Errorf("%s: marker %q: want <!-- run --> or <!-- run: expect \"text\" … -->", b.name(), prev)
	}
	for _, q := range quotedRE.FindAllStringSubmatch(e[1], -1) {
		b.expects = append(b.expects, strings.ReplaceAll(q[1], `\"`, `"`))
	}
	return nil
}

// nonBlank returns the lines of s that hold more than spaces, trimmed.
func nonBlank(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
