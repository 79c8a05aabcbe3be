package docs

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/internal/testclients"
)

// blockTimeout bounds one shell or Python block.
const blockTimeout = 30 * time.Second

// allBlocks parses every page's fenced blocks.
func allBlocks(t *testing.T) []block {
	t.Helper()
	var out []block
	for _, page := range pages(t) {
		bs, err := parseBlocks(page, read(t, page))
		if err != nil {
			t.Fatalf("parse %v", err)
		}
		out = append(out, bs...)
	}
	return out
}

// TestBlocksAreMarked fails on a shell, Python or Go block that says
// neither that it runs nor why it cannot run here.
func TestBlocksAreMarked(t *testing.T) {
	runnable := 0
	for _, b := range allBlocks(t) {
		switch {
		case b.run && !b.executable():
			t.Errorf("%s: marked runnable, but the docs test runs only sh, bash, python and go blocks, not %q", b.name(), b.lang)
		case b.run && b.lang == "go" && len(b.expects) > 0:
			t.Errorf("%s: a Go block asserts in its own code; expect and output blocks are for shell and Python", b.name())
		case b.run:
			runnable++
		case b.executable() && b.notRun == "":
			t.Errorf("%s: a %s block needs <!-- run --> or <!-- not run: why --> on the line before its fence", b.name(), b.lang)
		}
	}
	if runnable < 5 {
		t.Errorf("%d runnable blocks; the pages mark more (is the marker pattern broken?)", runnable)
	}
}

// TestRunnableBlocks runs every block the pages mark runnable against a
// fresh emulator and fails when one exits non-zero or does not print what
// its marker or output block states.
func TestRunnableBlocks(t *testing.T) {
	var shell, python, golang []block
	for _, b := range allBlocks(t) {
		switch {
		case !b.run:
		case b.lang == "go":
			golang = append(golang, b)
		case b.lang == "python":
			python = append(python, b)
		default:
			shell = append(shell, b)
		}
	}
	if len(shell) > 0 {
		needTools(t, "bash", "curl", "jq", "kcat", "base64")
	}
	bin := buildEmulator(t)
	for _, b := range shell {
		t.Run(b.name(), func(t *testing.T) {
			e := startEmulator(t, bin)
			e.setup(t)
			ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
			defer cancel()
			out, err := e.shell(ctx, b.text)
			check(t, b, out, err)
		})
	}
	for _, b := range python {
		t.Run(b.name(), func(t *testing.T) {
			e := startEmulator(t, bin)
			e.setup(t)
			runPython(t, e, b)
		})
	}
	if len(golang) > 0 {
		runGo(t, golang)
	}
}

// needTools fails the test, naming them, unless the commands the shell
// blocks call are on the PATH.
func needTools(t *testing.T, names ...string) {
	t.Helper()
	var missing []string
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("the pages' shell blocks need %s on the PATH (Debian packages bash, curl, jq, kcat and coreutils)",
			strings.Join(missing, ", "))
	}
}

// check fails the test on the block's error or on a stated answer its
// output lacks.
func check(t *testing.T, b block, out string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s failed: %v\nstdout:\n%s", b.name(), err, out)
	}
	for _, want := range b.expects {
		if !strings.Contains(out, want) {
			t.Errorf("%s printed no %q; it printed:\n%s", b.name(), want, out)
		}
	}
}

// runPython runs a Python block with the project's venv
// (scripts/install-python-deps.sh; FABRICTEST_PYTHON overrides it). A
// marked block without that venv fails: it must not pass unrun.
func runPython(t *testing.T, e *docEmulator, b block) {
	py, err := testclients.DeltaPython()
	if err != nil {
		t.Fatalf("%s is marked runnable and needs the project's venv: %v", b.name(), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
	defer cancel()
	out, err := e.output(exec.CommandContext(ctx, py, "-c", e.rewrite(b.text)))
	check(t, b, out, err)
}

var (
	testFuncRE = regexp.MustCompile(`(?m)^func (Test\w+)\(`)
)

// goHeader opens each Go block's file: the imports the pages' tests use,
// each referred to once so that a block need not use them all.
const goHeader = `package docsrun

import (
	"testing"

	"github.com/onsi/gomega"
	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/fabrictest"
)

var (
	_ = gomega.NewWithT
	_ = NewWithT
	_ = fabrictest.Start
	_ testing.TB
)

`

// runGo writes the Go blocks, each a test function, into a temporary
// package inside the module and runs them with go test on the embedded
// broker, one subtest per block.
func runGo(t *testing.T, blocks []block) {
	dir, err := os.MkdirTemp(".", "_docsrun")
	if err != nil {
		t.Fatalf("make the Go blocks' package: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	owner := map[string]block{}
	for i, b := range blocks {
		m := testFuncRE.FindStringSubmatch(b.text)
		if m == nil {
			t.Errorf("%s: a runnable Go block is a func TestX(t *testing.T)", b.name())
			continue
		}
		owner[m[1]] = b
		src := fmt.Sprintf("%s// %s\n%s", goHeader, b.name(), b.text)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("block%d_test.go", i)), []byte(src), 0o644); err != nil {
			t.Fatalf("write %s: %v", b.name(), err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-v", "./docs/"+filepath.Base(dir))
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "FABRICTEST_KAFKA=embedded")
	cmd.WaitDelay = 2 * time.Second
	outb, err := cmd.CombinedOutput()
	out := string(outb)
	for name, b := range owner {
		t.Run(b.name(), func(t *testing.T) {
			switch {
			case strings.Contains(out, "--- PASS: "+name+" "):
			case err == nil:
				t.Errorf("%s: go test passed but did not run %s:\n%s", b.name(), name, out)
			default:
				t.Errorf("%s (%s) failed: %v\n%s", b.name(), name, err, out)
			}
		})
	}
}
