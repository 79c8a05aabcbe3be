package rows

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/hamba/avro/v2"
)

// readAvro reads one datum of schema s from r into the row types of
// avro.go, walking the schema itself so that every union gives the value
// of its branch, whatever the branch.
func readAvro(r *avro.Reader, s avro.Schema, depth int) (any, error) {
	if depth > maxAvroDepth {
		return nil, fmt.Errorf("the value nests deeper than %d levels", maxAvroDepth)
	}
	v, err := readAvroValue(r, s, depth)
	if err == nil && r.Error != nil {
		err = r.Error
	}
	if err != nil {
		return nil, fmt.Errorf("read datum: %w", err)
	}
	return v, nil
}

// readAvroValue reads a value of s; r.Error holds a read failure.
func readAvroValue(r *avro.Reader, s avro.Schema, depth int) (any, error) {
	switch s.Type() {
	case avro.Null:
		return nil, nil
	case avro.Ref:
		return readAvro(r, s.(*avro.RefSchema).Schema(), depth)
	case avro.Union:
		types := s.(*avro.UnionSchema).Types()
		i := r.ReadLong()
		if r.Error != nil || i < 0 || i >= int64(len(types)) {
			return nil, fmt.Errorf("union branch %d out of range", i)
		}
		return readAvro(r, types[i], depth)
	case avro.Record:
		fields := s.(*avro.RecordSchema).Fields()
		m := make(map[string]any, len(fields))
		for _, f := range fields {
			v, err := readAvro(r, f.Type(), depth+1)
			if err != nil {
				return nil, err
			}
			m[f.Name()] = v
		}
		return m, nil
	case avro.Array:
		return readAvroArray(r, s.(*avro.ArraySchema).Items(), depth)
	case avro.Map:
		return readAvroMap(r, s.(*avro.MapSchema).Values(), depth)
	case avro.Enum:
		symbols := s.(*avro.EnumSchema).Symbols()
		i := r.ReadInt()
		if r.Error != nil || i < 0 || int(i) >= len(symbols) {
			return nil, fmt.Errorf("enum symbol %d out of range", i)
		}
		return symbols[i], nil
	case avro.Fixed:
		f := s.(*avro.FixedSchema)
		b := make([]byte, f.Size())
		r.Read(b)
		return fixedValue(b, f)
	}
	return readAvroPrimitive(r, s)
}

// readAvroArray reads an array's blocks.
func readAvroArray(r *avro.Reader, items avro.Schema, depth int) (any, error) {
	out := []any{}
	err := readBlocks(r, func() error {
		v, err := readAvro(r, items, depth+1)
		out = append(out, v)
		return err
	})
	return out, err
}

// readAvroMap reads a map's blocks.
func readAvroMap(r *avro.Reader, values avro.Schema, depth int) (any, error) {
	out := map[string]any{}
	err := readBlocks(r, func() error {
		k := r.ReadString()
		v, err := readAvro(r, values, depth+1)
		out[k] = v
		return err
	})
	return out, err
}

// readBlocks reads the blocks of an array or map, calling item for each
// item, and stops at the first failure (the library's own block loops go
// on past one, for as many items as a corrupt count says).
func readBlocks(r *avro.Reader, item func() error) error {
	for total := int64(0); ; {
		n, _ := r.ReadBlockHeader()
		if r.Error != nil {
			return r.Error
		}
		if n == 0 {
			return nil
		}
		if total += n; n < 0 || total > MaxEventBytes {
			return fmt.Errorf("a block counts %d items", n)
		}
		for range n {
			if err := item(); err != nil {
				return err
			}
			if r.Error != nil {
				return r.Error
			}
		}
	}
}

// readAvroPrimitive reads a primitive value and its logical type.
func readAvroPrimitive(r *avro.Reader, s avro.Schema) (any, error) {
	logical := logicalOf(s)
	switch s.Type() {
	case avro.Boolean:
		return r.ReadBool(), nil
	case avro.Int:
		i := int64(r.ReadInt())
		if logical == avro.Date {
			return time.Unix(i*86_400, 0).UTC(), nil
		}
		if logical == avro.TimeMillis {
			return i * 1000, nil // microseconds since midnight, as time-micros
		}
		return i, nil
	case avro.Long:
		return longValue(r.ReadLong(), logical), nil
	case avro.Float:
		return float64(r.ReadFloat()), nil
	case avro.Double:
		return r.ReadDouble(), nil
	case avro.String:
		return r.ReadString(), nil
	case avro.Bytes:
		b := r.ReadBytes()
		if d, ok := s.(*avro.PrimitiveSchema).Logical().(*avro.DecimalLogicalSchema); ok && logical == avro.Decimal {
			return decimalValue(b, d)
		}
		return base64.StdEncoding.EncodeToString(b), nil
	}
	return nil, fmt.Errorf("unexpected schema type %s", s.Type())
}

// logicalOf is s's logical type ("" without).
func logicalOf(s avro.Schema) avro.LogicalType {
	if l, ok := s.(avro.LogicalTypeSchema); ok && l.Logical() != nil {
		return l.Logical().Type()
	}
	return ""
}

// longValue is a long of logical type logical.
func longValue(i int64, logical avro.LogicalType) any {
	switch logical {
	case avro.TimestampMillis, avro.LocalTimestampMillis:
		return time.UnixMilli(i).UTC()
	case avro.TimestampMicros, avro.LocalTimestampMicros:
		return time.UnixMicro(i).UTC()
	}
	return i
}

// fixedValue is a fixed value: a decimal's digits, or the bytes' base64.
func fixedValue(b []byte, f *avro.FixedSchema) (any, error) {
	if d, ok := f.Logical().(*avro.DecimalLogicalSchema); ok {
		return decimalValue(b, d)
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// MaxDecimalPrecision is the most digits a decimal may have: Fabric rejects
// a message with more during deserialization (fabric-docs, "Schema
// Registry - known limitations").
const MaxDecimalPrecision = 28

// decimalValue is decimal d of two's-complement big-endian unscaled b.
func decimalValue(b []byte, d *avro.DecimalLogicalSchema) (any, error) {
	if d.Precision() > MaxDecimalPrecision {
		return nil, fmt.Errorf("decimal precision %d is over %d digits", d.Precision(), MaxDecimalPrecision)
	}
	scale := d.Scale()
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b)*8)))
	}
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	return json.Number(new(big.Rat).SetFrac(n, den).FloatString(scale)), nil
}
