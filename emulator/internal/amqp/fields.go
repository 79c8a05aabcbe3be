package amqp

import (
	"fmt"
	"time"
)

// fieldReader reads the fields of a composite type's list in order. The
// first failure is kept in err; later reads return zero values.
type fieldReader struct {
	what   string
	fields []any
	i      int
	err    error
}

// next returns the next field, nil when the list has ended.
func (r *fieldReader) next() any {
	if r.i >= len(r.fields) {
		r.i++
		return nil
	}
	v := r.fields[r.i]
	r.i++
	return v
}

// fail keeps the first error about field name.
func (r *fieldReader) fail(name, format string, args ...any) {
	if r.err == nil {
		r.err = malformed("decode %s: field %s: %s", r.what, name, fmt.Sprintf(format, args...))
	}
}

// optional reads the next field as a T; present is false for null.
func optional[T any](r *fieldReader, name string) (v T, present bool) {
	f := r.next()
	if f == nil {
		return v, false
	}
	v, ok := f.(T)
	if !ok {
		r.fail(name, "want %s, got %s", amqpType(v), amqpType(f))
		return v, false
	}
	return v, true
}

// mandatory reads the next field as a T and fails when it is null.
func mandatory[T any](r *fieldReader, name string) T {
	v, ok := optional[T](r, name)
	if !ok && r.err == nil {
		r.fail(name, "mandatory field is null")
	}
	return v
}

// orDefault reads the next field as a T, or def when it is null.
func orDefault[T any](r *fieldReader, name string, def T) T {
	if v, ok := optional[T](r, name); ok {
		return v
	}
	return def
}

// pointer reads the next field as a *T, nil when it is null.
func pointer[T any](r *fieldReader, name string) *T {
	if v, ok := optional[T](r, name); ok {
		return &v
	}
	return nil
}

// symbols reads a multiple symbol field: a single symbol or an array.
func (r *fieldReader) symbols(name string) []Symbol {
	switch v := r.next().(type) {
	case nil:
		return nil
	case Symbol:
		return []Symbol{v}
	case Array:
		out := make([]Symbol, len(v))
		for i, e := range v {
			s, ok := e.(Symbol)
			if !ok {
				r.fail(name, "array element %d: want symbol, got %s", i, amqpType(e))
				return nil
			}
			out[i] = s
		}
		return out
	default:
		r.fail(name, "want symbol or array of symbol, got %s", amqpType(v))
		return nil
	}
}

// composite reads the next field with decode, which receives nil for null.
func composite[T any](r *fieldReader, name string, decode func(any) (T, error)) T {
	v, err := decode(r.next())
	if err != nil && r.err == nil {
		r.err = wrapf(err, "decode %s: field %s", r.what, name)
	}
	return v
}

// amqpType names the AMQP type of a decoded Go value for error messages.
func amqpType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case uint8:
		return "ubyte"
	case uint16:
		return "ushort"
	case uint32:
		return "uint"
	case uint64:
		return "ulong"
	case int32:
		return "int"
	case int64:
		return "long"
	case string:
		return "string"
	case Symbol:
		return "symbol"
	case []byte:
		return "binary"
	case []any:
		return "list"
	case Map:
		return "map"
	case Array:
		return "array"
	case Described:
		return "described"
	case time.Time:
		return "timestamp"
	}
	return fmt.Sprintf("%T", v)
}

// symbolArray encodes a multiple symbol field: null when empty.
func symbolArray(s []Symbol) any {
	if len(s) == 0 {
		return nil
	}
	a := make(Array, len(s))
	for i, v := range s {
		a[i] = v
	}
	return a
}

// ptr encodes an optional field: null for a nil pointer.
func ptr[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// nonZero encodes a field whose zero value means absent.
func nonZero[T comparable](v T) any {
	var zero T
	if v == zero {
		return nil
	}
	return v
}

// mapField encodes a map field: null when empty.
func mapField(m Map) any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// binaryField encodes a binary field: null when nil.
func binaryField(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

// trimList drops trailing nulls, as the spec allows for composite lists.
func trimList(l []any) []any {
	n := len(l)
	for n > 0 && l[n-1] == nil {
		n--
	}
	return l[:n]
}

// describedList returns the field list of a described composite whose
// descriptor must be code (or its symbolic name).
func describedList(v any, code uint64) ([]any, error) {
	d, ok := v.(Described)
	if !ok {
		return nil, malformed("decode %s: want a described list, got %s", descriptorName(code), amqpType(v))
	}
	if c, ok := descriptorCode(d.Descriptor); !ok || c != code {
		return nil, malformed("decode %s: descriptor is %v", descriptorName(code), d.Descriptor)
	}
	l, ok := d.Value.([]any)
	if !ok {
		return nil, malformed("decode %s: want a list, got %s", descriptorName(code), amqpType(d.Value))
	}
	return l, nil
}

// describe wraps a composite's fields into its described list.
func describe(code uint64, fields []any) Described {
	return Described{Descriptor: code, Value: trimList(fields)}
}
