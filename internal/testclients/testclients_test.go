package testclients

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestModuleRootHoldsThisModule(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !strings.HasPrefix(string(mod), "module github.com/fabrictest/fabrictest\n") {
		t.Fatalf("module root %s: go.mod %.60q (%v)", root, mod, err)
	}
}

func TestDeltaPythonPrefersTheEnvironment(t *testing.T) {
	t.Setenv("FABRICTEST_PYTHON", "/opt/some/python")
	if p, err := DeltaPython(); err != nil || p != "/opt/some/python" {
		t.Fatalf("DeltaPython() = %q, %v; want FABRICTEST_PYTHON", p, err)
	}
	t.Setenv("FABRICTEST_PYTHON", "")
	root, _ := ModuleRoot()
	venv := filepath.Join(root, ".cache", "venv", "bin", "python")
	p, err := DeltaPython()
	if _, statErr := os.Stat(venv); statErr == nil {
		if err != nil || p != venv {
			t.Fatalf("DeltaPython() = %q, %v; want the venv %s", p, err, venv)
		}
	} else if err == nil || !strings.Contains(err.Error(), "install-python-deps.sh") {
		t.Fatalf("DeltaPython() without a venv = %q, %v; want an error with the install hint", p, err)
	}
}

func TestRunFeedsStdinAndReturnsStdout(t *testing.T) {
	if got := string(Run(t, []byte("a\x00b\n"), "cat")); got != "a\x00b\n" {
		t.Fatalf("Run(cat) = %q", got)
	}
}
