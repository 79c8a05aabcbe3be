package amqp

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"
)

// EncodeValue returns the encoding of v (see the package doc for the Go
// representation of each AMQP type).
func EncodeValue(v any) ([]byte, error) {
	return AppendValue(nil, v)
}

// AppendValue appends the encoding of v to dst, choosing the most compact
// encoding of each value.
func AppendValue(dst []byte, v any) ([]byte, error) {
	return appendValue(dst, v, 0)
}

// appendValue encodes v at nesting depth depth.
func appendValue(dst []byte, v any, depth int) ([]byte, error) {
	if b, ok := appendScalar(dst, v); ok {
		return b, nil
	}
	if depth >= MaxDepth {
		return dst, fmt.Errorf("encode %T: nesting deeper than %d", v, MaxDepth)
	}
	switch v := v.(type) {
	case []any:
		return appendList(dst, v, depth+1)
	case Map:
		return appendMap(dst, v, depth+1)
	case Array:
		return appendArray(dst, v, depth+1)
	case Described:
		return appendDescribed(dst, v, depth+1)
	}
	return dst, fmt.Errorf("encode: unsupported Go type %T", v)
}

// appendScalar encodes the non-compound values; ok is false for others.
func appendScalar(dst []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(dst, codeNull), true
	case bool:
		if v {
			return append(dst, codeTrue), true
		}
		return append(dst, codeFalse), true
	case uint32:
		return appendUint(dst, v), true
	case uint64:
		return appendUlong(dst, v), true
	case int32:
		if v >= math.MinInt8 && v <= math.MaxInt8 {
			return append(dst, codeSmallInt, byte(v)), true
		}
		return binary.BigEndian.AppendUint32(append(dst, codeInt), uint32(v)), true
	case int64:
		if v >= math.MinInt8 && v <= math.MaxInt8 {
			return append(dst, codeSmallLong, byte(v)), true
		}
		return binary.BigEndian.AppendUint64(append(dst, codeLong), uint64(v)), true
	case []byte:
		return appendVariable(dst, codeVbin8, codeVbin32, v), true
	case string:
		return appendVariable(dst, codeStr8, codeStr32, v), true
	case Symbol:
		return appendVariable(dst, codeSym8, codeSym32, v), true
	}
	code, ok := elementCodeOf(v)
	if !ok {
		return dst, false
	}
	return appendData(append(dst, code), code, v), true
}

// appendUint encodes a uint as uint0, smalluint or uint.
func appendUint(dst []byte, v uint32) []byte {
	switch {
	case v == 0:
		return append(dst, codeUint0)
	case v <= math.MaxUint8:
		return append(dst, codeSmallUint, byte(v))
	}
	return binary.BigEndian.AppendUint32(append(dst, codeUint), v)
}

// appendUlong encodes a ulong as ulong0, smallulong or ulong.
func appendUlong(dst []byte, v uint64) []byte {
	switch {
	case v == 0:
		return append(dst, codeUlong0)
	case v <= math.MaxUint8:
		return append(dst, codeSmallUlong, byte(v))
	}
	return binary.BigEndian.AppendUint64(append(dst, codeUlong), v)
}

// appendVariable encodes b with the 1-byte size code when it fits.
func appendVariable[T string | []byte | Symbol](dst []byte, code8, code32 byte, b T) []byte {
	if len(b) <= math.MaxUint8 {
		return append(append(dst, code8, byte(len(b))), b...)
	}
	dst = binary.BigEndian.AppendUint32(append(dst, code32), uint32(len(b)))
	return append(dst, b...)
}

// elementCodeOf returns the single fixed format code of v's Go type, used
// for the fixed-width types and for array elements.
func elementCodeOf(v any) (byte, bool) {
	switch v.(type) {
	case bool:
		return codeBool, true
	case uint8:
		return codeUbyte, true
	case uint16:
		return codeUshort, true
	case uint32:
		return codeUint, true
	case uint64:
		return codeUlong, true
	case int8:
		return codeByte, true
	case int16:
		return codeShort, true
	case int32:
		return codeInt, true
	case int64:
		return codeLong, true
	case float32:
		return codeFloat, true
	case float64:
		return codeDouble, true
	}
	return elementCodeOf2(v)
}

// elementCodeOf2 continues elementCodeOf.
func elementCodeOf2(v any) (byte, bool) {
	switch v.(type) {
	case Char:
		return codeChar, true
	case time.Time:
		return codeTimestamp, true
	case UUID:
		return codeUUID, true
	case Decimal32:
		return codeDecimal32, true
	case Decimal64:
		return codeDecimal64, true
	case Decimal128:
		return codeDecimal128, true
	}
	return 0, false
}

// appendData appends the data bytes (no constructor) of fixed-width v.
func appendData(dst []byte, code byte, v any) []byte {
	switch v := v.(type) {
	case bool:
		if v {
			return append(dst, 1)
		}
		return append(dst, 0)
	case uint8:
		return append(dst, v)
	case uint16:
		return binary.BigEndian.AppendUint16(dst, v)
	case uint32:
		return binary.BigEndian.AppendUint32(dst, v)
	case uint64:
		return binary.BigEndian.AppendUint64(dst, v)
	case int8:
		return append(dst, byte(v))
	case int16:
		return binary.BigEndian.AppendUint16(dst, uint16(v))
	case int32:
		return binary.BigEndian.AppendUint32(dst, uint32(v))
	case int64:
		return binary.BigEndian.AppendUint64(dst, uint64(v))
	case float32:
		return binary.BigEndian.AppendUint32(dst, math.Float32bits(v))
	case float64:
		return binary.BigEndian.AppendUint64(dst, math.Float64bits(v))
	}
	return appendData2(dst, v)
}

// appendData2 continues appendData.
func appendData2(dst []byte, v any) []byte {
	switch v := v.(type) {
	case Char:
		return binary.BigEndian.AppendUint32(dst, uint32(v))
	case time.Time:
		return binary.BigEndian.AppendUint64(dst, uint64(v.UnixMilli()))
	case UUID:
		return append(dst, v[:]...)
	case Decimal32:
		return append(dst, v[:]...)
	case Decimal64:
		return append(dst, v[:]...)
	case Decimal128:
		return append(dst, v[:]...)
	}
	return dst
}
