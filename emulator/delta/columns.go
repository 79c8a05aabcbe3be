package delta

import (
	"fmt"
	"os"

	"github.com/parquet-go/parquet-go"
)

// columnChunkRows is the most rows of one column handed to its writer at a
// time: as many as parquet-go's WriteRows hands each column, so that pages
// end where they end when the same rows are written row by row.
const columnChunkRows = 64

// writeColumns writes the data file of n rows given column by column under
// plan p: cols[k] holds the values of Parquet column k, row after row.
func (t *Table) writeColumns(p *plan, n int, cols [][]parquet.Value) (*dataFile, error) {
	if err := os.MkdirAll(t.dir, DirMode); err != nil {
		return nil, fmt.Errorf("create table directory: %w", err)
	}
	groupRows := int(t.o.rowGroupRows)
	return createDataFile(t.dir, p, n, &t.o, func(w *parquet.GenericWriter[any]) error {
		return writeColumnGroups(w, cols, n, groupRows)
	})
}

// writeColumnGroups writes n rows, given column by column, to w in row
// groups of groupRows rows: the same file as writeRowChunks writes from
// the same rows, without making the rows (parquet-go would only take them
// apart into columns again).
func writeColumnGroups(w *parquet.GenericWriter[any], cols [][]parquet.Value, n, groupRows int) error {
	starts := make([][]int, len(cols))
	for k, col := range cols {
		starts[k] = rowStarts(col, n)
	}
	for lo := 0; lo < n; lo += groupRows {
		if lo > 0 {
			if err := w.Flush(); err != nil {
				return fmt.Errorf("flush row group: %w", err)
			}
		}
		hi := min(n, lo+groupRows)
		for k, cw := range w.ColumnWriters() {
			if err := writeColumnRows(cw, cols[k], starts[k], lo, hi); err != nil {
				return fmt.Errorf("write column %d: %w", k, err)
			}
		}
	}
	return nil
}

// writeColumnRows writes rows lo to hi of one column, in the chunks
// writeRowChunks hands it: shredChunk rows per WriteRows call, which
// parquet-go writes columnChunkRows rows at a time, counted afresh from the
// start of each call and of each row group. starts maps a row to its first
// value (nil: value i is row i).
func writeColumnRows(cw *parquet.ColumnWriter, col []parquet.Value, starts []int, lo, hi int) error {
	at := func(row int) int {
		if starts == nil {
			return row
		}
		return starts[row]
	}
	for a := lo; a < hi; {
		b := min(hi, a+columnChunkRows, (a/shredChunk+1)*shredChunk)
		if _, err := cw.WriteRowValues(col[at(a):at(b)]); err != nil {
			return err
		}
		a = b
	}
	return nil
}

// rowStarts returns, for a column of n rows, the index of each row's first
// value and, last, the number of values; nil when the column has one value
// per row. A row starts at a value of repetition level 0.
func rowStarts(col []parquet.Value, n int) []int {
	if len(col) == n {
		return nil
	}
	starts := make([]int, 0, n+1)
	for i, v := range col {
		if v.RepetitionLevel() == 0 {
			starts = append(starts, i)
		}
	}
	return append(starts, len(col))
}
