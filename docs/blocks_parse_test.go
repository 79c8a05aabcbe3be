package docs

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseBlocks pins the marker grammar the executed-docs test reads.
func TestParseBlocks(t *testing.T) {
	page := strings.Join([]string{
		"Text.",
		`<!-- run: expect "a \"b\"" "c" -->`,
		"```sh",
		"echo 'a \"b\" c'",
		"```",
		"<!-- output -->",
		"```text",
		"  a \"b\" c  ",
		"",
		"```",
		"<!-- not run: needs Docker -->",
		"```go",
		"x := 1",
		"```",
		"```python",
		"print(1)",
		"```",
		"```json",
		"{}",
		"```",
	}, "\n")
	bs, err := parseBlocks("p.md", page)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 4 {
		t.Fatalf("got %d blocks, want 4 (the output block belongs to the first): %+v", len(bs), bs)
	}
	if b := bs[0]; !b.run || b.line != 3 || b.lang != "sh" || b.text != "echo 'a \"b\" c'\n" ||
		!reflect.DeepEqual(b.expects, []string{`a "b"`, "c", `a "b" c`}) {
		t.Errorf("run block = %+v", b)
	}
	if b := bs[1]; b.run || b.notRun != "needs Docker" || !b.executable() {
		t.Errorf("not-run block = %+v", b)
	}
	if b := bs[2]; b.run || b.notRun != "" || !b.executable() {
		t.Errorf("unmarked python block = %+v", b)
	}
	if b := bs[3]; b.executable() {
		t.Errorf("json block executable: %+v", b)
	}
}

// TestParseBlocksRefusesBadMarkers: a misspelt marker or an orphan output
// block is an error, not a block that silently stops running.
func TestParseBlocksRefusesBadMarkers(t *testing.T) {
	for _, page := range []string{
		"<!-- run: expects \"x\" -->\n```sh\ntrue\n```",
		"<!-- run: expect x -->\n```sh\ntrue\n```",
		"<!-- output -->\n```text\nx\n```",
		"```sh\ntrue\n",
	} {
		if _, err := parseBlocks("p.md", page); err == nil {
			t.Errorf("no error for %q", page)
		}
	}
}
