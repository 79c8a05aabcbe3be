package delta_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// largeBatch is n record values: plain ones, with every 7th carrying a
// field the table has no column for and every 11th a name in another case
// (both left to the projector), and bad[i] in place of record i.
func largeBatch(n int, bad map[int]string) [][]byte {
	values := make([][]byte, n)
	for i := range values {
		switch {
		case bad[i] != "":
			values[i] = []byte(bad[i])
		case i%7 == 0:
			values[i] = fmt.Appendf(nil, `{"device":"d%d","seq":%d,"extra":%d}`, i%13, i, i)
		case i%11 == 0:
			values[i] = fmt.Appendf(nil, `{"Device":"d%d","seq":%d}`, i%13, i)
		default:
			values[i] = fmt.Appendf(nil, `{"device":"d%d","seq":%d,"temp":%d.5}`, i%13, i, i%40)
		}
	}
	return values
}

// appendBothWays appends values to a fresh table of (device, seq, temp)
// as decoded rows and as record values (WithValues).
func appendBothWays(t *testing.T, values [][]byte) (dirs [2]string, reports [2]delta.Report, errs [2]error) {
	decoded := make([]rows.Row, len(values))
	for i, v := range values {
		decoded[i] = rows.FromValue(v)
	}
	for k := range dirs {
		dirs[k] = tableDir(t)
		tbl := mustOpen(t, dirs[k], delta.WithoutFsync(), delta.WithSchemaMode(delta.SchemaEnforce))
		if _, err := tbl.Append(context.Background(), []rows.Row{rows.FromValue([]byte(`{"device":"d","seq":0,"temp":0.5}`))}); err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			reports[k], errs[k] = tbl.AppendReport(context.Background(), decoded)
		} else {
			reports[k], errs[k] = tbl.AppendReport(context.Background(), make([]rows.Row, len(values)), delta.WithValues(values))
		}
	}
	return dirs, reports, errs
}

// A batch large enough to be converted in parts (one data file per part,
// written at once) reads back as the same rows, in the same order, with the
// same dropped-field report as the batch appended as rows in one file.
func TestLargeBatchOfValuesIsWrittenInParts(t *testing.T) {
	const n = 10_000
	dirs, reports, errs := appendBothWays(t, largeBatch(n, nil))
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("append: rows %v, values %v", errs[0], errs[1])
	}
	if !reflect.DeepEqual(reports[0].Dropped, reports[1].Dropped) {
		t.Fatalf("dropped differ: rows %v, values %v", reports[0].Dropped, reports[1].Dropped)
	}
	if d := reports[1].Dropped; len(d) != 1 || d[0].Path != "extra" || d[0].Count != (n+6)/7 || d[0].Example != "0" {
		t.Fatalf("dropped = %+v, want extra ×%d with example 0", d, (n+6)/7)
	}
	a, errA := delta.ReadTable(dirs[0])
	b, errB := delta.ReadTable(dirs[1])
	if errA != nil || errB != nil {
		t.Fatalf("read back: %v, %v", errA, errB)
	}
	if len(b.Rows) != n+1 || !reflect.DeepEqual(a.Rows, b.Rows) {
		t.Fatalf("rows differ: %d by rows, %d by values", len(a.Rows), len(b.Rows))
	}
	wantFiles := 1 + min(runtime.GOMAXPROCS(0), 2) // the first append's, then a part per processor
	if len(b.Files) != wantFiles {
		t.Fatalf("%d data files, want %d (GOMAXPROCS %d)", len(b.Files), wantFiles, runtime.GOMAXPROCS(0))
	}
	last := b.Commits[len(b.Commits)-1]
	if last.AddedFiles != wantFiles-1 || last.AddedRows != n {
		t.Fatalf("version %d added %d files of %d rows, want %d of %d", last.Version, last.AddedFiles, last.AddedRows, wantFiles-1, n)
	}
}

// A row that cannot be converted in any part fails the whole batch with
// every bad row named in order, as the rows path does, and leaves no data
// file behind (the parts written before the error are removed).
func TestLargeBatchWithBadRowsWritesNothing(t *testing.T) {
	const n = 10_000
	bad := map[int]string{10: `{"seq":"ten"}`, 9_000: `{"temp":true,"seq":"x"}`}
	dirs, _, errs := appendBothWays(t, largeBatch(n, bad))
	var re *delta.RowsError
	if !errors.As(errs[1], &re) || len(re.Errs) != 2 {
		t.Fatalf("err = %v, want a RowsError with 2 rows", errs[1])
	}
	if errs[0] == nil || errs[0].Error() != errs[1].Error() {
		t.Fatalf("errors differ: rows %v, values %v", errs[0], errs[1])
	}
	if !strings.Contains(re.Errs[0].Error(), "10") || !strings.Contains(re.Errs[1].Error(), "9000") {
		t.Fatalf("errors not in row order: %v", re.Errs)
	}
	files, _ := filepath.Glob(filepath.Join(dirs[1], "*.parquet"))
	if len(files) != 1 { // the first append's
		t.Fatalf("%d data files after the failed append, want 1: %v", len(files), files)
	}
	if _, err := os.Stat(filepath.Join(dirs[1], "_delta_log", "00000000000000000001.json")); !os.IsNotExist(err) {
		t.Fatalf("version 1 exists after the failed append (%v)", err)
	}
}
