package delta

import (
	"unsafe"

	"github.com/parquet-go/parquet-go"
)

// valueFields mirrors the fields of parquet.Value (parquet-go v0.32.0,
// value.go). Value.Level, the only way to set a value's levels, is not
// inlined and stalls on its own byte stores; at three values a row it was
// the largest single cost of writing a plain record. setLevels sets the
// levels in place instead, where the mirror is checked to match (sameLayout).
type valueFields struct {
	ptr             *byte
	u64             uint64
	kind            int8
	definitionLevel byte
	repetitionLevel byte
	columnIndex     uint16
}

// directLevels is whether setLevels may set levels in place: parquet.Value
// is laid out as valueFields.
var directLevels = sameLayout()

// sameLayout reports whether levels set through valueFields give the values
// Value.Level gives, for probes of every kind setLevels is used for.
func sameLayout() bool {
	if unsafe.Sizeof(parquet.Value{}) != unsafe.Sizeof(valueFields{}) {
		return false
	}
	text := []byte("probe")
	for _, v := range []parquet.Value{
		parquet.Int64Value(-0x0102030405060708), parquet.DoubleValue(-2.5),
		parquet.BooleanValue(true), parquet.ByteArrayValue(text), parquet.NullValue(),
	} {
		for _, lv := range [][2]int{{0, 0}, {1, 0}, {3, 7}, {255, parquet.MaxColumnIndex}} {
			want := v.Level(0, lv[0], lv[1])
			got := v
			setLevels(&got, lv[0], lv[1])
			if got != want || !parquet.Equal(got, want) || got.Column() != lv[1] || got.DefinitionLevel() != lv[0] {
				return false
			}
		}
	}
	return true
}

// setLevels sets the definition level and column of a value fresh from a
// parquet.*Value constructor (levels 0), as Value.Level does, when
// directLevels holds; def is at most 255 and col at most
// parquet.MaxColumnIndex.
func setLevels(v *parquet.Value, def, col int) {
	f := (*valueFields)(unsafe.Pointer(v))
	f.definitionLevel, f.columnIndex = byte(def), ^uint16(col)
}
