package delta_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// TestReadRowsReadsOnlyItsFiles: four commits of three rows each; pages
// of ReadRows give ReadTable's rows in its order, across file boundaries,
// and a page that does not reach a damaged file reads fine while one that
// does fails naming it.
func TestReadRowsReadsOnlyItsFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	tbl, err := delta.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for c := range 4 {
		var batch []rows.Row
		for i := range 3 {
			batch = append(batch, rows.FromValue(fmt.Appendf(nil, `{"n":%d}`, c*3+i)))
		}
		if _, err := tbl.Append(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
	}
	snap, _, err := delta.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ offset, limit, first, n int64 }{{0, 5, 0, 5}, {4, 5, 4, 5}, {10, 5, 10, 2}, {12, 5, 0, 0}, {3, 3, 3, 3}} {
		got, err := delta.ReadRows(dir, snap, c.offset, c.limit)
		if err != nil {
			t.Fatalf("ReadRows(%d, %d): %v", c.offset, c.limit, err)
		}
		if int64(len(got)) != c.n {
			t.Fatalf("ReadRows(%d, %d): %d rows, want %d", c.offset, c.limit, len(got), c.n)
		}
		for i, r := range got {
			if r["n"] != c.first+int64(i) {
				t.Fatalf("ReadRows(%d, %d): row %d is %v, want n=%d", c.offset, c.limit, i, r, c.first+int64(i))
			}
		}
	}
	last := filepath.Join(dir, filepath.FromSlash(snap.Files[3].Path))
	if err := os.WriteFile(last, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := delta.ReadRows(dir, snap, 0, 9); err != nil {
		t.Fatalf("a page before the damaged file: %v", err)
	}
	if _, err := delta.ReadRows(dir, snap, 8, 3); err == nil {
		t.Fatal("a page reaching the damaged file read fine")
	}
}
