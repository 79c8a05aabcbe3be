package delta_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// mixedFirst makes a table of every type the Delta writer writes: string,
// long, double, boolean, timestamp, a struct, an array of longs and an
// array of structs.
const mixedFirst = `{"s":"x","l":1,"d":1.5,"b":true,"t":"2024-05-01T10:00:00Z",` +
	`"st":{"a":1,"z":"q"},"arr":[1,2],"sa":[{"p":1,"q":"x"}]}`

// mixedBatch is n record values for the mixedFirst table: plain records of
// every scalar type (converted by the flat path), nulls, values converted
// to the column's type, and records the projector takes (nested values,
// empty arrays, dropped fields, names in another case). The strings are
// long enough, and of lengths varied enough, for a column to span several
// pages in a row group of 1000 rows, each ending where the rows end that
// parquet-go hands the column at once.
func mixedBatch(n int) [][]byte {
	values := make([][]byte, n)
	for i := range values {
		pad := strings.Repeat("p", 900+i%211)
		switch i % 9 {
		case 0, 1, 2:
			values[i] = fmt.Appendf(nil, `{"s":"dev-%d-%s","l":%d,"d":%d.25,"b":%t,"t":"2024-05-01T10:%02d:%02d.%03dZ"}`,
				i%17, pad, i*7919-5000, i%300-150, i%2 == 0, i/60%60, i%60, i%1000)
		case 3:
			values[i] = []byte(`{"s":null,"l":null,"d":null,"b":null,"t":null,"st":null,"arr":null,"sa":null}`)
		case 4:
			values[i] = fmt.Appendf(nil, `{"d":%d,"l":true,"s":%d.5,"b":false}`, i, i)
		case 5:
			values[i] = fmt.Appendf(nil, `{"s":"n%d","st":{"a":%d,"z":"w"},"arr":[%d,2,3],"sa":[{"p":1,"q":"a"},{"p":%d}]}`, i, i, i, i)
		case 6:
			values[i] = fmt.Appendf(nil, `{"arr":[],"sa":[],"st":{"a":null},"l":%d}`, -i)
		case 7:
			values[i] = fmt.Appendf(nil, `{"s":"x%d%s","extra":%d,"l":9223372036854775807}`, i, pad, i)
		default:
			values[i] = fmt.Appendf(nil, `{"S":"folded%d","L":%d,"d":1e-3}`, i, i)
		}
	}
	return values
}

// A batch of record values converted column by column (the flat path)
// writes, byte for byte, the data file that the same batch appended as
// decoded rows writes row by row, with the same statistics and dropped
// fields, and reads back as the same rows (through this package's reader
// and delta-rs): with the default row groups and
// with row groups of a size that is no multiple of parquet-go's chunks.
func TestColumnsWriteTheFileRowsWrite(t *testing.T) {
	for _, groupRows := range []int64{1000, 128 * 1024} {
		t.Run(fmt.Sprint(groupRows), func(t *testing.T) {
			const n = 3000 // one part (flatParts)
			values := mixedBatch(n)
			dirs, reports := appendMixedBothWays(t, values, delta.WithRowGroupRows(groupRows))
			if !reflect.DeepEqual(reports[0].Dropped, reports[1].Dropped) {
				t.Fatalf("dropped differ: rows %v, values %v", reports[0].Dropped, reports[1].Dropped)
			}
			if d := reports[1].Dropped; len(d) != 1 || d[0].Path != "extra" || d[0].Count != n/9 {
				t.Fatalf("dropped = %+v, want extra ×%d", d, n/9)
			}
			checkTable(t, dirs[1]) // delta-rs reads the rows and the statistics back
			a, errA := delta.ReadTable(dirs[0])
			b, errB := delta.ReadTable(dirs[1])
			if errA != nil || errB != nil {
				t.Fatalf("read back: %v, %v", errA, errB)
			}
			if len(b.Rows) != n+1 || !reflect.DeepEqual(a.Rows, b.Rows) {
				t.Fatalf("rows differ: %d by rows, %d by values", len(a.Rows), len(b.Rows))
			}
			if len(a.Files) != 2 || len(b.Files) != 2 {
				t.Fatalf("%d and %d data files, want 2 each", len(a.Files), len(b.Files))
			}
			if a.Files[1].Stats != b.Files[1].Stats {
				t.Fatalf("stats differ:\n rows   %s\n values %s", a.Files[1].Stats, b.Files[1].Stats)
			}
			rowsFile := mustReadFile(t, filepath.Join(dirs[0], a.Files[1].Path))
			valuesFile := mustReadFile(t, filepath.Join(dirs[1], b.Files[1].Path))
			if !bytes.Equal(rowsFile, valuesFile) {
				t.Fatalf("data files differ: %d bytes by rows, %d by values", len(rowsFile), len(valuesFile))
			}
		})
	}
}

// appendMixedBothWays appends values to a fresh mixedFirst table as
// decoded rows and as record values (WithValues).
func appendMixedBothWays(t *testing.T, values [][]byte, opts ...delta.Option) (dirs [2]string, reports [2]delta.Report) {
	t.Helper()
	decoded := make([]rows.Row, len(values))
	for i, v := range values {
		decoded[i] = rows.FromValue(v)
	}
	opts = append(opts, delta.WithoutFsync(), delta.WithSchemaMode(delta.SchemaEnforce))
	for k := range dirs {
		dirs[k] = tableDir(t)
		tbl := mustOpen(t, dirs[k], opts...)
		if _, err := tbl.Append(context.Background(), []rows.Row{rows.FromValue([]byte(mixedFirst))}); err != nil {
			t.Fatal(err)
		}
		var err error
		if k == 0 {
			reports[k], err = tbl.AppendReport(context.Background(), decoded)
		} else {
			reports[k], err = tbl.AppendReport(context.Background(), make([]rows.Row, len(values)), delta.WithValues(values))
		}
		if err != nil {
			t.Fatalf("append (%d): %v", k, err)
		}
	}
	return dirs, reports
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
