package delta

import (
	"testing"

	"github.com/parquet-go/parquet-go"
)

// The parquet-go in go.mod lays parquet.Value out as valueFields, so plain
// records take setLevels; after an upgrade that moves its fields this fails
// (and the flat path falls back to Value.Level).
func TestSetLevelsIsValueLevel(t *testing.T) {
	if !directLevels {
		t.Fatal("parquet.Value is no longer laid out as valueFields: update valueFields or drop setLevels")
	}
	for _, v := range []parquet.Value{parquet.Int64Value(7), parquet.ByteArrayValue([]byte("x")), parquet.NullValue()} {
		got := v
		setLevels(&got, 1, 42)
		if want := v.Level(0, 1, 42); got != want {
			t.Fatalf("setLevels(%v) = %#v, Level gives %#v", v, got, want)
		}
	}
}
