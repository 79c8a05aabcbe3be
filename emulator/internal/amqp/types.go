package amqp

import (
	"encoding/hex"
	"fmt"
)

// Symbol is an AMQP symbol: an ASCII string from a constrained domain.
type Symbol string

// Char is an AMQP char: a single Unicode code point (UTF-32BE on the wire).
type Char rune

// UUID is an AMQP uuid (RFC 4122, 16 bytes in network order).
type UUID [16]byte

// String formats the UUID in the canonical 8-4-4-4-12 hex form.
func (u UUID) String() string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// Decimal32 is an IEEE 754-2008 decimal32 kept as its 4 wire bytes.
type Decimal32 [4]byte

// Decimal64 is an IEEE 754-2008 decimal64 kept as its 8 wire bytes.
type Decimal64 [8]byte

// Decimal128 is an IEEE 754-2008 decimal128 kept as its 16 wire bytes.
type Decimal128 [16]byte

// MapEntry is one key/value pair of a Map.
type MapEntry struct {
	Key   any
	Value any
}

// Map is an AMQP map. It keeps the pairs in wire order; keys are compared
// with Go's == (keys are AMQP primitive values: symbols, strings, ulongs, …).
type Map []MapEntry

// Get returns the value of the first pair whose key equals key.
func (m Map) Get(key any) (any, bool) {
	for _, e := range m {
		if keyEqual(e.Key, key) {
			return e.Value, true
		}
	}
	return nil, false
}

// Set replaces the value of the first pair whose key equals key, or appends
// a new pair.
func (m *Map) Set(key, value any) {
	for i, e := range *m {
		if keyEqual(e.Key, key) {
			(*m)[i].Value = value
			return
		}
	}
	*m = append(*m, MapEntry{Key: key, Value: value})
}

// keyEqual compares two keys without panicking on uncomparable values.
func keyEqual(a, b any) bool {
	switch a.(type) {
	case []any, []byte, Map, Array, Described:
		return false
	}
	switch b.(type) {
	case []any, []byte, Map, Array, Described:
		return false
	}
	return a == b
}

// Array is an AMQP array: a sequence of values of one type. Its elements use
// the Go representation of that type (all Symbol, all uint32, …).
type Array []any

// Described is a described value: a descriptor (uint64 or Symbol) and the
// value it describes.
type Described struct {
	Descriptor any
	Value      any
}

// typeName names an AMQP format code for error messages.
func typeName(code byte) string {
	if n := codeNames[code]; n != "" {
		return n
	}
	return fmt.Sprintf("0x%02x", code)
}
