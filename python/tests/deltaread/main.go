// Command deltaread prints the rows of a Delta table as emulator/delta's
// reader sees them: one JSON object {"version": n, "rows": [...]} on stdout.
// python/tests/test_delta_sinks.py runs it (go run) on the tables Spark and
// Sail write, as a reader independent of delta-rs.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/fabrictest/fabrictest/emulator/delta"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: deltaread <table dir>")
		os.Exit(2)
	}
	snap, err := delta.ReadTable(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out := map[string]any{"version": snap.Version, "rows": snap.Rows}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, fmt.Errorf("write rows: %w", err))
		os.Exit(1)
	}
}
