package testclients

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
)

// DeltaView is what delta-rs, a Delta reader nobody here wrote, finds in a
// table: its version, its history (one operation per commit, oldest
// first), its columns and its rows (values JSON cannot hold, such as
// timestamps, as their text).
type DeltaView struct {
	Version    int64            `json:"version"`
	Operations []string         `json:"operations"`
	Columns    []string         `json:"columns"`
	Rows       []map[string]any `json:"rows"`
}

// deltaRSScript prints the table at argv[1] as a DeltaView. os._exit skips
// interpreter teardown, where deltalake's native threads now and then abort
// the process after the answer is out.
const deltaRSScript = `import json, os, sys
from deltalake import DeltaTable
dt = DeltaTable(sys.argv[1])
t = dt.to_pyarrow_table()
history = sorted(dt.history(), key=lambda c: c.get("version", 0))
print(json.dumps({"version": dt.version(), "operations": [c.get("operation") for c in history],
                  "columns": t.column_names, "rows": t.to_pylist()}, default=str), flush=True)
os._exit(0)`

// DeltaRS reads the Delta table at dir with delta-rs (python deltalake, in
// the interpreter DeltaPython finds). A missing interpreter or package is an
// error that says how to install it: the witness never skips its reader.
func DeltaRS(ctx context.Context, dir string) (DeltaView, error) {
	py, err := DeltaPython()
	if err != nil {
		return DeltaView{}, err
	}
	out, err := exec.CommandContext(ctx, py, "-c", deltaRSScript, dir).Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		return DeltaView{}, fmt.Errorf("delta-rs could not read %s with %s (%s): %w\n%s", dir, py, DeltaInstallHint, err, stderr)
	}
	var v DeltaView
	if err := json.Unmarshal(out, &v); err != nil {
		return DeltaView{}, fmt.Errorf("delta-rs answer %q: %w", out, err)
	}
	return v, nil
}
