package delta

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// A commit whose data files could not be made durable is not written:
// putIfAbsent runs ready before the link, and its error leaves neither the
// commit file nor the temporary one.
func TestPutIfAbsentAbortsWhenDataFilesAreNotDurable(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	failed := errors.New("sync data file: input/output error")
	created, err := tbl.putIfAbsent(0, []byte("{}\n"), func() error { return failed })
	if created || !errors.Is(err, failed) {
		t.Fatalf("putIfAbsent = %v, %v; want false and the ready error", created, err)
	}
	left, _ := os.ReadDir(filepath.Join(dir, logDirName))
	for _, e := range left {
		t.Errorf("the log directory holds %s after an aborted commit", e.Name())
	}
}

// With fsync on, a data file is synced after it is written and the commit
// waits for it: every file the log adds is closed and synced by the time
// Append returns, and durable answers the same on every call.
func TestAppendWaitsForDataFileSync(t *testing.T) {
	dir := t.TempDir()
	tbl, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := tbl.Append(context.Background(), []rows.Row{{"n": int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	var staged stagedFiles
	st := tbl.state()
	if _, err := tbl.stageBatch(&st, []rows.Row{{"n": int64(9)}}, &appendOptions{}, &staged); err != nil {
		t.Fatal(err)
	}
	if len(staged.files) != 1 || staged.files[0].synced == nil {
		t.Fatalf("staged %+v: want one file with its sync under way", staged.files)
	}
	for range 2 {
		if err := staged.durable(); err != nil {
			t.Fatal(err)
		}
	}
	if staged.files[0].synced != nil {
		t.Errorf("durable left the sync pending")
	}
	path := filepath.Join(dir, staged.files[0].path)
	staged.remove(dir)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("removed data file still there: %v", err)
	}
}
