package asaql_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/asaql"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
)

// FuzzCompile: any query either compiles into specs that marshal (the
// pipeline may still refuse them, never panic) or is refused with an
// *asaql.Error.
func FuzzCompile(f *testing.F) {
	for _, q := range []string{
		"SELECT * INTO [MyStream] FROM [MyNode]",
		"SELECT a AS b, Upper(s) AS u INTO o FROM i WHERE (x > 1 AND NOT y LIKE '%z%') OR z IS NULL",
		"SELECT k, COUNT(*) AS n, System.Timestamp() AS t INTO o FROM i TIMESTAMP BY ts GROUP BY k, HoppingWindow(minute, 10, 5, 1)",
		"SELECT CAST(a AS nvarchar(max)) INTO o FROM i -- comment",
		"SELECT 1.2.3 AS x INTO o FROM i",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		plan, err := asaql.Compile(q, "sql")
		if err != nil {
			var e *asaql.Error
			if !errors.As(err, &e) {
				t.Fatalf("%q: error %v is not an *asaql.Error", q, err)
			}
			return
		}
		raw, err := json.Marshal(plan.Specs)
		if err != nil {
			t.Fatalf("%q: specs do not marshal: %v", q, err)
		}
		if len(plan.Specs) > 0 {
			_, _ = pipeline.Parse(raw)
		}
	})
}
