package amqp

import (
	"encoding/binary"
	"fmt"
	"math"
)

// appendList encodes a list as list0, list8 or list32.
func appendList(dst []byte, items []any, depth int) ([]byte, error) {
	if len(items) == 0 {
		return append(dst, codeList0), nil
	}
	start := len(dst)
	dst = append(dst, codeList32, 0, 0, 0, 0, 0, 0, 0, 0)
	var err error
	for i, v := range items {
		if dst, err = appendValue(dst, v, depth); err != nil {
			return dst[:start], fmt.Errorf("encode list element %d: %w", i, err)
		}
	}
	return finishCompound(dst, start, codeList8, len(items))
}

// appendMap encodes a map as map8 or map32.
func appendMap(dst []byte, m Map, depth int) ([]byte, error) {
	start := len(dst)
	dst = append(dst, codeMap32, 0, 0, 0, 0, 0, 0, 0, 0)
	var err error
	for i, e := range m {
		if dst, err = appendValue(dst, e.Key, depth); err != nil {
			return dst[:start], fmt.Errorf("encode map key %d: %w", i, err)
		}
		if dst, err = appendValue(dst, e.Value, depth); err != nil {
			return dst[:start], fmt.Errorf("encode map value %d: %w", i, err)
		}
	}
	return finishCompound(dst, start, codeMap8, 2*len(m))
}

// finishCompound fills in the size and count of the compound value that
// starts at dst[start] with a 9-byte 32-bit header, and moves it to the
// 8-bit form (code8) when size and count fit in a byte.
func finishCompound(dst []byte, start int, code8 byte, count int) ([]byte, error) {
	body := len(dst) - start - 9
	if uint64(body)+4 > math.MaxUint32 || uint64(count) > math.MaxUint32 {
		return dst[:start], fmt.Errorf("encode %s: %d bytes is too large", kindOf(code8), body)
	}
	if body+1 <= math.MaxUint8 && count <= math.MaxUint8 {
		dst[start] = code8
		dst[start+1] = byte(body + 1)
		dst[start+2] = byte(count)
		copy(dst[start+3:], dst[start+9:])
		return dst[:len(dst)-6], nil
	}
	binary.BigEndian.PutUint32(dst[start+1:], uint32(body+4))
	binary.BigEndian.PutUint32(dst[start+5:], uint32(count))
	return dst, nil
}

// appendDescribed encodes a described value.
func appendDescribed(dst []byte, d Described, depth int) ([]byte, error) {
	switch d.Descriptor.(type) {
	case uint64, Symbol:
	default:
		return dst, fmt.Errorf("encode described: descriptor must be uint64 or Symbol, got %T", d.Descriptor)
	}
	dst, _ = appendValue(append(dst, codeDescribed), d.Descriptor, depth)
	return appendValue(dst, d.Value, depth)
}

// appendArray encodes an array as array8 or array32. All elements must have
// one Go type (Described elements one descriptor and one value type); an
// empty array is encoded with the null element constructor.
func appendArray(dst []byte, items Array, depth int) ([]byte, error) {
	desc, values, err := arrayValues(items)
	if err != nil {
		return dst, err
	}
	code, err := arrayCode(values)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	dst = append(dst, codeArray32, 0, 0, 0, 0, 0, 0, 0, 0)
	if desc != nil {
		dst, _ = appendValue(append(dst, codeDescribed), desc, depth)
	}
	dst = append(dst, code)
	for i, v := range values {
		if dst, err = appendElement(dst, code, v, depth); err != nil {
			return dst[:start], fmt.Errorf("encode array element %d: %w", i, err)
		}
	}
	return finishCompound(dst, start, codeArray8, len(items))
}

// arrayValues returns the shared descriptor and the described values of an
// array of Described elements, or nil and the items themselves.
func arrayValues(items Array) (any, Array, error) {
	first, ok := items[0:min(1, len(items))], false
	if len(first) == 1 {
		_, ok = first[0].(Described)
	}
	if !ok {
		return nil, items, nil
	}
	desc := items[0].(Described).Descriptor
	switch desc.(type) {
	case uint64, Symbol:
	default:
		return nil, nil, fmt.Errorf("encode array: descriptor must be uint64 or Symbol, got %T", desc)
	}
	values := make(Array, len(items))
	for i, v := range items {
		d, ok := v.(Described)
		if !ok || !keyEqual(d.Descriptor, desc) {
			return nil, nil, fmt.Errorf("encode array: element %d does not share element 0's descriptor", i)
		}
		values[i] = d.Value
	}
	return desc, values, nil
}

// arrayCode chooses the element constructor of an array from its elements.
func arrayCode(items Array) (byte, error) {
	if len(items) == 0 {
		return codeNull, nil
	}
	first := fmt.Sprintf("%T", items[0])
	for i, v := range items[1:] {
		if t := fmt.Sprintf("%T", v); t != first {
			return 0, fmt.Errorf("encode array: element %d is %s, element 0 is %s", i+1, t, first)
		}
	}
	if code, ok := elementCodeOf(items[0]); ok {
		return code, nil
	}
	switch items[0].(type) {
	case []byte, string, Symbol:
		return variableArrayCode(items), nil
	case []any:
		return codeList32, nil
	case Map:
		return codeMap32, nil
	case Array:
		return codeArray32, nil
	}
	return 0, fmt.Errorf("encode array: unsupported element type %s", first)
}

// variableArrayCode picks the 8- or 32-bit code for binary, string or
// symbol elements: 8-bit only when every element fits.
func variableArrayCode(items Array) byte {
	long := false
	var c8, c32 byte
	for _, v := range items {
		n := 0
		switch v := v.(type) {
		case []byte:
			n, c8, c32 = len(v), codeVbin8, codeVbin32
		case string:
			n, c8, c32 = len(v), codeStr8, codeStr32
		case Symbol:
			n, c8, c32 = len(v), codeSym8, codeSym32
		}
		long = long || n > math.MaxUint8
	}
	if long {
		return c32
	}
	return c8
}

// appendElement appends one array element without its constructor.
func appendElement(dst []byte, code byte, v any, depth int) ([]byte, error) {
	if _, ok := fixedWidth(code); ok {
		return appendData(dst, code, v), nil
	}
	switch v := v.(type) {
	case []byte:
		return appendVarData(dst, code, v), nil
	case string:
		return appendVarData(dst, code, v), nil
	case Symbol:
		return appendVarData(dst, code, v), nil
	}
	start := len(dst)
	dst, err := appendValue(dst, v, depth)
	if err != nil {
		return dst, err
	}
	return widenCompound(dst, start), nil
}

// appendVarData appends the size (1 or 4 bytes, by code) and bytes of a
// binary, string or symbol array element.
func appendVarData[T string | []byte | Symbol](dst []byte, code byte, b T) []byte {
	if code == codeVbin8 || code == codeStr8 || code == codeSym8 {
		return append(append(dst, byte(len(b))), b...)
	}
	return append(binary.BigEndian.AppendUint32(dst, uint32(len(b))), b...)
}

// widenCompound rewrites the compound value at dst[start] (list, map or
// array in any width) into its 32-bit form without the constructor byte,
// as array elements of compound type share one 32-bit constructor.
func widenCompound(dst []byte, start int) []byte {
	var size, count, head int
	switch dst[start] {
	case codeList0:
		return append(dst[:start], 0, 0, 0, 4, 0, 0, 0, 0)
	case codeList8, codeMap8, codeArray8:
		size, count, head = int(dst[start+1])-1, int(dst[start+2]), 3
	default:
		size = int(binary.BigEndian.Uint32(dst[start+1:])) - 4
		count, head = int(binary.BigEndian.Uint32(dst[start+5:])), 9
	}
	body := append([]byte(nil), dst[start+head:start+head+size]...)
	dst = binary.BigEndian.AppendUint32(dst[:start], uint32(size+4))
	dst = binary.BigEndian.AppendUint32(dst, uint32(count))
	return append(dst, body...)
}
