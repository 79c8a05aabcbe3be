package delta_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// Environment of a child process started by TestMultiProcessAppends.
const (
	childDirEnv     = "DELTA_TEST_CHILD_DIR"
	childIDEnv      = "DELTA_TEST_CHILD_ID"
	childBatchesEnv = "DELTA_TEST_CHILD_BATCHES"
	childRowsEnv    = "DELTA_TEST_CHILD_ROWS"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(childDirEnv); dir != "" {
		if err := runChild(dir); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	stopReader()
	os.Exit(code)
}

// runChild is one writer process of TestMultiProcessAppends: it appends its
// batches to the shared table, each with a txn of its own app id.
func runChild(dir string) error {
	id := os.Getenv(childIDEnv)
	batches, err := strconv.Atoi(os.Getenv(childBatchesEnv))
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(os.Getenv(childRowsEnv))
	if err != nil {
		return err
	}
	tbl, err := delta.Open(dir, delta.WithMaxCommitAttempts(1000))
	if err != nil {
		return err
	}
	for b := 0; b < batches; b++ {
		batch := make([]rows.Row, n)
		for i := range batch {
			batch[i] = rows.Row{"writer": id, "batch": int64(b), "seq": int64(i)}
		}
		if _, err := tbl.Append(context.Background(), batch, delta.Txn{AppID: "writer-" + id, Version: int64(b)}); err != nil {
			return err
		}
	}
	return nil
}
