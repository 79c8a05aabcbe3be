package amqp

import (
	"encoding/binary"
	"math"
	"time"
	"unicode/utf8"
)

// MaxDepth bounds the nesting of described values, lists, maps and arrays
// that the decoder accepts.
const MaxDepth = 32

// DecodeValue decodes one AMQP value from the start of b and returns it with
// the number of bytes it took. Errors wrap ErrMalformed.
func DecodeValue(b []byte) (any, int, error) {
	r := reader{buf: b}
	v, err := r.value()
	if err != nil {
		return nil, 0, err
	}
	return v, r.off, nil
}

// reader decodes values from buf; off is the next byte to read and depth
// the nesting of the value being decoded.
type reader struct {
	buf   []byte
	off   int
	depth int
	alias bool // binary values alias buf instead of being copied
}

// remaining returns the number of unread bytes.
func (r *reader) remaining() int { return len(r.buf) - r.off }

// take returns the next n bytes, or an error naming what was being read.
func (r *reader) take(n int, what string) ([]byte, error) {
	if n < 0 || n > r.remaining() {
		return nil, malformed("decode %s: need %d bytes, %d remaining", what, n, r.remaining())
	}
	b := r.buf[r.off : r.off+n]
	r.off += n
	return b, nil
}

// value decodes one value with its constructor.
func (r *reader) value() (any, error) {
	c, err := r.take(1, "constructor")
	if err != nil {
		return nil, err
	}
	if c[0] == codeDescribed {
		return r.described()
	}
	return r.primitive(c[0])
}

// described decodes a described value after its 0x00 constructor byte.
func (r *reader) described() (any, error) {
	if err := r.enter("described"); err != nil {
		return nil, err
	}
	defer r.leave()
	d, err := r.descriptor()
	if err != nil {
		return nil, err
	}
	v, err := r.value()
	if err != nil {
		return nil, wrapf(err, "decode described %v", d)
	}
	return Described{Descriptor: d, Value: v}, nil
}

// descriptor decodes a descriptor, which must be a ulong or a symbol.
func (r *reader) descriptor() (any, error) {
	if r.remaining() == 0 {
		return nil, malformed("decode descriptor: no bytes remaining")
	}
	switch c := r.buf[r.off]; c {
	case codeUlong, codeSmallUlong, codeUlong0, codeSym8, codeSym32:
		r.off++
		return r.primitive(c)
	default:
		return nil, malformed("decode descriptor: must be ulong or symbol, got %s", typeName(c))
	}
}

// enter adds a nesting level, failing past MaxDepth.
func (r *reader) enter(what string) error {
	if r.depth >= MaxDepth {
		return malformed("decode %s: nesting deeper than %d", what, MaxDepth)
	}
	r.depth++
	return nil
}

// leave removes a nesting level.
func (r *reader) leave() { r.depth-- }

// primitive decodes the data of a value whose format code is c.
func (r *reader) primitive(c byte) (any, error) {
	if w, ok := fixedWidth(c); ok {
		b, err := r.take(w, typeName(c))
		if err != nil {
			return nil, err
		}
		return fixedValue(c, b)
	}
	switch c {
	case codeVbin8, codeStr8, codeSym8:
		return r.variable(c, 1)
	case codeVbin32, codeStr32, codeSym32:
		return r.variable(c, 4)
	case codeList8, codeMap8, codeArray8:
		return r.compound(c, 1)
	case codeList32, codeMap32, codeArray32:
		return r.compound(c, 4)
	}
	return nil, malformed("decode value: unknown format code 0x%02x", c)
}

// fixedValue converts the data bytes b of fixed-width code c.
func fixedValue(c byte, b []byte) (any, error) {
	switch c {
	case codeNull:
		return nil, nil
	case codeTrue:
		return true, nil
	case codeFalse:
		return false, nil
	case codeBool:
		if b[0] > 1 {
			return nil, malformed("decode boolean: byte 0x%02x is neither 0x00 nor 0x01", b[0])
		}
		return b[0] == 1, nil
	case codeUbyte:
		return b[0], nil
	case codeUshort:
		return binary.BigEndian.Uint16(b), nil
	case codeUint0:
		return uint32(0), nil
	case codeSmallUint:
		return uint32(b[0]), nil
	case codeUint:
		return binary.BigEndian.Uint32(b), nil
	case codeUlong0:
		return uint64(0), nil
	case codeSmallUlong:
		return uint64(b[0]), nil
	case codeUlong:
		return binary.BigEndian.Uint64(b), nil
	case codeList0:
		return []any{}, nil
	}
	return signedValue(c, b)
}

// signedValue converts the fixed-width codes that fixedValue leaves.
func signedValue(c byte, b []byte) (any, error) {
	switch c {
	case codeByte:
		return int8(b[0]), nil
	case codeShort:
		return int16(binary.BigEndian.Uint16(b)), nil
	case codeSmallInt:
		return int32(int8(b[0])), nil
	case codeInt:
		return int32(binary.BigEndian.Uint32(b)), nil
	case codeSmallLong:
		return int64(int8(b[0])), nil
	case codeLong:
		return int64(binary.BigEndian.Uint64(b)), nil
	case codeFloat:
		return math.Float32frombits(binary.BigEndian.Uint32(b)), nil
	case codeDouble:
		return math.Float64frombits(binary.BigEndian.Uint64(b)), nil
	case codeTimestamp:
		return time.UnixMilli(int64(binary.BigEndian.Uint64(b))).UTC(), nil
	case codeChar:
		ch := rune(binary.BigEndian.Uint32(b))
		if !utf8.ValidRune(ch) {
			return nil, malformed("decode char: 0x%08x is not a Unicode code point", uint32(ch))
		}
		return Char(ch), nil
	}
	return decimalValue(c, b), nil
}

// decimalValue copies the bytes of a decimal or uuid value.
func decimalValue(c byte, b []byte) any {
	switch c {
	case codeDecimal32:
		return Decimal32(b)
	case codeDecimal64:
		return Decimal64(b)
	case codeDecimal128:
		return Decimal128(b)
	}
	return UUID(b)
}

// length reads the size or count field (named field) of width 1 or 4 of
// a value of type name.
func (r *reader) length(width int, name, field string) (int, error) {
	if width > r.remaining() {
		return 0, malformed("decode %s %s: need %d bytes, %d remaining", name, field, width, r.remaining())
	}
	b := r.buf[r.off : r.off+width]
	r.off += width
	if width == 1 {
		return int(b[0]), nil
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > math.MaxInt32 {
		return 0, malformed("decode %s %s: %d is out of range", name, field, n)
	}
	return int(n), nil
}

// variable decodes binary, string and symbol values.
func (r *reader) variable(c byte, width int) (any, error) {
	name := typeName(c)
	n, err := r.length(width, name, "size")
	if err != nil {
		return nil, err
	}
	if n > r.remaining() {
		return nil, malformed("decode %s: size %d exceeds remaining %d bytes", name, n, r.remaining())
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	switch c {
	case codeVbin8, codeVbin32:
		if r.alias {
			return b, nil
		}
		out := make([]byte, len(b))
		copy(out, b)
		return out, nil
	case codeStr8, codeStr32:
		if !utf8.Valid(b) {
			return nil, malformed("decode %s: not valid UTF-8", name)
		}
		return string(b), nil
	}
	for _, ch := range b {
		if ch >= 0x80 {
			return nil, malformed("decode %s: byte 0x%02x is not ASCII", name, ch)
		}
	}
	return Symbol(b), nil
}
