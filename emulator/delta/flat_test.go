package delta_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// FuzzFlatValuesMatchDecodedRows: a batch appended with its record values
// (WithValues, rows left nil: plain records skip the Row) and the same
// batch appended as decoded rows give the same error, the same dropped
// fields, the same rows read back and the same file statistics.
func FuzzFlatValuesMatchDecodedRows(f *testing.F) {
	for _, seed := range [][4]string{
		{`{"device":"d1","seq":1,"temp":20.5,"on":true,"at":"2024-05-01T10:00:00Z"}`, `{"device":"d2","seq":2,"temp":21,"on":false,"at":"2024-05-01T10:00:01.5+02:00"}`, `{"seq":3.0,"temp":1e400}`, `{"device":7,"seq":"x"}`},
		{`{"id":1,"a":"x"}`, `{"id":2,"b":"y"}`, `{"ID":3,"a":null}`, `{"id":1.5}`},
		{`{"q":1}`, `{"q":true}`, `{"q":9223372036854775808}`, `{"q":2e3}`},
		{`{"s":"x","n":{"a":[1]}}`, `{"s":1.50,"n":null}`, `{"s":true,"n":{"a":[2],"b":1}}`, `{"s":{"a":1}}`},
		{`{"t":"2024-05-01T10:00:00Z","u":1}`, `{"t":"2024-05-01"}`, `{"t":null,"u":null}`, `{}`},
		{`{"v":1}`, `[1,2]`, "\xff\x00", `{"v":1,"v":2}`},
		{`{"f":1.5,"b":true}`, `{"f":true,"b":1}`, `{"f":"1.5","b":"true"}`, ` {"f":-0,"b":false} `},
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]), []byte(seed[2]), []byte(seed[3]))
	}
	f.Fuzz(func(t *testing.T, first, v1, v2, v3 []byte) {
		values := [][]byte{v1, v2, v3}
		decoded := []rows.Row{rows.FromValue(v1), rows.FromValue(v2), rows.FromValue(v3)}
		byRows, byValues := tableDir(t), tableDir(t)
		var reports [2]delta.Report
		var errs [2]error
		for k, dir := range []string{byRows, byValues} {
			tbl, err := delta.Open(dir, delta.WithoutFsync(), delta.WithSchemaMode(delta.SchemaEnforce))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tbl.Append(context.Background(), []rows.Row{rows.FromValue(first)}); err != nil {
				return // a first record that makes no table
			}
			if k == 0 {
				reports[k], errs[k] = tbl.AppendReport(context.Background(), decoded)
			} else {
				reports[k], errs[k] = tbl.AppendReport(context.Background(), make([]rows.Row, 3), delta.WithValues(values))
			}
		}
		if (errs[0] == nil) != (errs[1] == nil) || errs[0] != nil && errs[0].Error() != errs[1].Error() {
			t.Fatalf("errors differ: rows %v, values %v", errs[0], errs[1])
		}
		if !reflect.DeepEqual(reports[0].Dropped, reports[1].Dropped) {
			t.Fatalf("dropped differ: rows %v, values %v", reports[0].Dropped, reports[1].Dropped)
		}
		a, errA := delta.ReadTable(byRows)
		b, errB := delta.ReadTable(byValues)
		if errA != nil || errB != nil {
			t.Fatalf("read back: %v, %v", errA, errB)
		}
		if !reflect.DeepEqual(a.Rows, b.Rows) {
			t.Fatalf("rows differ:\n rows   %v\n values %v", a.Rows, b.Rows)
		}
		for i := range a.Files {
			if a.Files[i].Stats != b.Files[i].Stats {
				t.Fatalf("file %d stats differ:\n rows   %s\n values %s", i, a.Files[i].Stats, b.Files[i].Stats)
			}
		}
	})
}
