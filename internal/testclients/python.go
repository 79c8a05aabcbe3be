package testclients

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DeltaInstallHint is how to get the Python the delta-rs readers use.
const DeltaInstallHint = "run `bash scripts/install-python-deps.sh` from the repository root (or set FABRICTEST_PYTHON to a python with deltalake and pyarrow)"

// DeltaPython finds the interpreter that reads Delta tables with delta-rs
// (python deltalake): FABRICTEST_PYTHON when set, else the project's venv,
// .cache/venv at the module root, which must exist.
func DeltaPython() (string, error) {
	if p := os.Getenv("FABRICTEST_PYTHON"); p != "" {
		return p, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, ".cache", "venv", "bin", "python")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no Python for the delta-rs reader at %s: %s", p, DeltaInstallHint)
	}
	return p, nil
}

// ModuleRoot walks up from the working directory to the directory of
// go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
