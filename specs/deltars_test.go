//go:build container

package specs_test

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/internal/testclients"
)

// deltaRSView is what delta-rs, a Delta reader nobody here wrote, finds in a
// table: its version, its history (one operation per commit), its columns
// and its rows.
type deltaRSView struct {
	Version    int64            `json:"version"`
	Operations []string         `json:"operations"`
	Columns    []string         `json:"columns"`
	Rows       []map[string]any `json:"rows"`
}

// deltaRSScript reads a table with the deltalake package and prints it as
// JSON (values JSON can't hold, such as timestamps, as their text).
// os._exit skips interpreter teardown, where deltalake's native threads now
// and then abort the process after the answer is out.
const deltaRSScript = `import json, os, sys
from deltalake import DeltaTable
dt = DeltaTable(sys.argv[1])
t = dt.to_pyarrow_table()
history = sorted(dt.history(), key=lambda c: c.get("version", 0))
print(json.dumps({"version": dt.version(), "operations": [c.get("operation") for c in history],
                  "columns": t.column_names, "rows": t.to_pylist()}, default=str), flush=True)
os._exit(0)`

// deltaRS reads the Delta table at dir with delta-rs (python deltalake in the
// project's venv, installed by scripts/install-python-deps.sh; FABRICTEST_PYTHON
// names another interpreter). A missing venv or package fails the spec: the
// witness never skips its independent reader.
func deltaRS(ctx context.Context, dir string) deltaRSView {
	GinkgoHelper()
	py, err := testclients.DeltaPython()
	Expect(err).NotTo(HaveOccurred())
	out, err := exec.CommandContext(ctx, py, "-c", deltaRSScript, dir).Output()
	var stderr []byte
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		stderr = ee.Stderr
	}
	Expect(err).NotTo(HaveOccurred(), "delta-rs could not read %s with %s (run bash scripts/install-python-deps.sh, or set FABRICTEST_PYTHON):\n%s", dir, py, stderr)
	var v deltaRSView
	Expect(json.Unmarshal(out, &v)).To(Succeed(), "delta-rs answer: %s", out)
	return v
}
