package delta

import (
	"slices"
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

// Without setLevels (a parquet-go whose Value is laid out otherwise) plain
// records get the values Value.Level gives: the same columns either way.
func TestFlatBatchWithoutSetLevels(t *testing.T) {
	s := Schema{Fields: []Field{
		{Name: "s", Type: Primitive(TypeString)}, {Name: "l", Type: Primitive(TypeLong)},
		{Name: "d", Type: Primitive(TypeDouble)}, {Name: "b", Type: Primitive(TypeBoolean)},
		{Name: "t", Type: Primitive(TypeTimestamp)}, {Name: "st", Type: StructOf(Field{Name: "a", Type: Primitive(TypeLong)})},
	}}
	values := [][]byte{
		[]byte(`{"s":"x","l":1,"d":2.5,"b":true,"t":"2024-05-01T10:00:00Z"}`),
		[]byte(`{"s":null,"l":-3,"st":null}`),
		[]byte(`{"d":7,"b":false,"s":12}`),
	}
	var cols [2][][]parquet.Value
	for k, direct := range []bool{true, false} {
		p, err := compile(s)
		if err != nil {
			t.Fatal(err)
		}
		f := newFlatBatch(p, len(values))
		f.direct = direct && directLevels
		for i, v := range values {
			if !f.plain(v) {
				t.Fatalf("record %d is not plain", i)
			}
		}
		cols[k] = f.cols
	}
	if len(cols[0]) != len(cols[1]) {
		t.Fatalf("%d and %d columns", len(cols[0]), len(cols[1]))
	}
	for c := range cols[0] {
		if len(cols[0][c]) != len(values) || !slices.Equal(cols[0][c], cols[1][c]) {
			t.Fatalf("column %d: %#v with setLevels, %#v with Value.Level", c, cols[0][c], cols[1][c])
		}
	}
}
