package amqp

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// vector is a value and its compact encoding, derived by hand from the
// OASIS AMQP 1.0 spec, part 1, section 1.6 (format codes) and 1.2 (layout).
type vector struct {
	name string
	v    any
	b    []byte
}

var vectors = []vector{
	{"null", nil, []byte{0x40}},                // null: 0x40, no data
	{"true", true, []byte{0x41}},               // boolean true: 0x41
	{"false", false, []byte{0x42}},             // boolean false: 0x42
	{"ubyte", uint8(0xab), []byte{0x50, 0xab}}, // ubyte: 0x50 + 1 byte
	{"ushort", uint16(0x1234), []byte{0x60, 0x12, 0x34}},
	{"uint0", uint32(0), []byte{0x43}},             // uint 0: 0x43 uint0
	{"smalluint", uint32(200), []byte{0x52, 0xc8}}, // 0..255: 0x52 + 1 byte
	{"uint", uint32(0x01020304), []byte{0x70, 1, 2, 3, 4}},
	{"ulong0", uint64(0), []byte{0x44}},
	{"smallulong", uint64(0x10), []byte{0x53, 0x10}},
	{"ulong", uint64(1 << 40), []byte{0x80, 0, 0, 1, 0, 0, 0, 0, 0}},
	{"byte", int8(-2), []byte{0x51, 0xfe}},
	{"short", int16(-2), []byte{0x61, 0xff, 0xfe}},
	{"smallint", int32(-1), []byte{0x54, 0xff}}, // -128..127: 0x54 + 1 byte
	{"int", int32(1000), []byte{0x71, 0, 0, 0x03, 0xe8}},
	{"smalllong", int64(127), []byte{0x55, 0x7f}},
	{"long", int64(-129), []byte{0x81, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
	{"float", float32(1.5), []byte{0x72, 0x3f, 0xc0, 0, 0}},                               // IEEE 754 binary32
	{"double", float64(-2), []byte{0x82, 0xc0, 0, 0, 0, 0, 0, 0, 0}},                      // IEEE 754 binary64
	{"char", Char('€'), []byte{0x73, 0, 0, 0x20, 0xac}},                                   // UTF-32BE
	{"timestamp", time.UnixMilli(1000).UTC(), []byte{0x83, 0, 0, 0, 0, 0, 0, 0x03, 0xe8}}, // ms since epoch
	{"uuid", UUID{15: 1}, append([]byte{0x98}, append(make([]byte, 15), 1)...)},
	{"decimal32", Decimal32{1, 2, 3, 4}, []byte{0x74, 1, 2, 3, 4}},
	{"decimal64", Decimal64{1, 2, 3, 4, 5, 6, 7, 8}, []byte{0x84, 1, 2, 3, 4, 5, 6, 7, 8}},
	{"decimal128", Decimal128{0: 9}, append([]byte{0x94, 9}, make([]byte, 15)...)},
	{"vbin8", []byte{1, 2}, []byte{0xa0, 2, 1, 2}},                                                  // 0xa0, 1-byte size, bytes
	{"str8", "hé", []byte{0xa1, 3, 'h', 0xc3, 0xa9}},                                                // UTF-8 bytes
	{"sym8", Symbol("ab"), []byte{0xa3, 2, 'a', 'b'}},                                               // ASCII bytes
	{"list0", []any{}, []byte{0x45}},                                                                // empty list
	{"list8", []any{true, uint32(1)}, []byte{0xc0, 4, 2, 0x41, 0x52, 1}},                            // size counts count+elements
	{"map8", Map{{Symbol("k"), "v"}}, []byte{0xc1, 7, 2, 0xa3, 1, 'k', 0xa1, 1, 'v'}},               // count = 2 x pairs
	{"array8 sym", Array{Symbol("a"), Symbol("bc")}, []byte{0xe0, 7, 2, 0xa3, 1, 'a', 2, 'b', 'c'}}, // one constructor
	{"array8 uint", Array{uint32(1), uint32(2)}, []byte{0xe0, 10, 2, 0x70, 0, 0, 0, 1, 0, 0, 0, 2}},
	{"array8 bool", Array{true, false}, []byte{0xe0, 4, 2, 0x56, 1, 0}},
	{"array8 list", Array{[]any{}}, []byte{0xe0, 10, 1, 0xd0, 0, 0, 0, 4, 0, 0, 0, 0}}, // list32 elements
	{"array8 empty", Array{}, []byte{0xe0, 2, 0, 0x40}},
	// described elements: one constructor 0x00, descriptor, element code
	{"array8 described", Array{Described{Symbol("d"), uint32(1)}}, []byte{0xe0, 10, 1, 0x00, 0xa3, 1, 'd', 0x70, 0, 0, 0, 1}},
	{"described ulong", Described{uint64(0x24), []any{}}, []byte{0x00, 0x53, 0x24, 0x45}}, // accepted
	{"described symbol", Described{Symbol("x:y"), "v"}, []byte{0x00, 0xa3, 3, 'x', ':', 'y', 0xa1, 1, 'v'}},
}

// TestVectors checks every encoding against its hand-derived bytes both ways.
func TestVectors(t *testing.T) {
	for _, tc := range vectors {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EncodeValue(tc.v)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if !bytes.Equal(got, tc.b) {
				t.Fatalf("encode = % x, want % x", got, tc.b)
			}
			v, n, err := DecodeValue(append(tc.b, 0xee))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if n != len(tc.b) {
				t.Fatalf("decode took %d bytes, want %d", n, len(tc.b))
			}
			if !reflect.DeepEqual(v, tc.v) {
				t.Fatalf("decode = %#v, want %#v", v, tc.v)
			}
		})
	}
}

// wideVectors decode from their non-compact encodings to the same values.
var wideVectors = []vector{
	{"bool 0x56 true", true, []byte{0x56, 0x01}},
	{"bool 0x56 false", false, []byte{0x56, 0x00}},
	{"uint wide", uint32(0), []byte{0x70, 0, 0, 0, 0}},
	{"ulong wide", uint64(5), []byte{0x80, 0, 0, 0, 0, 0, 0, 0, 5}},
	{"int wide", int32(-1), []byte{0x71, 0xff, 0xff, 0xff, 0xff}},
	{"long wide", int64(1), []byte{0x81, 0, 0, 0, 0, 0, 0, 0, 1}},
	{"vbin32", []byte{7}, []byte{0xb0, 0, 0, 0, 1, 7}},
	{"str32", "a", []byte{0xb1, 0, 0, 0, 1, 'a'}},
	{"sym32", Symbol("a"), []byte{0xb3, 0, 0, 0, 1, 'a'}},
	{"list8 empty", []any{}, []byte{0xc0, 1, 0}},
	{"list32", []any{nil}, []byte{0xd0, 0, 0, 0, 5, 0, 0, 0, 1, 0x40}}, // size 4+1, count 1
	{"map32", Map{{uint64(1), nil}}, []byte{0xd1, 0, 0, 0, 7, 0, 0, 0, 2, 0x53, 1, 0x40}},
	{"array32", Array{int8(1)}, []byte{0xf0, 0, 0, 0, 6, 0, 0, 0, 1, 0x51, 1}},
	{"described array", Array{Described{Symbol("d"), uint32(1)}}, []byte{0xe0, 10, 1, 0x00, 0xa3, 1, 'd', 0x70, 0, 0, 0, 1}},
	{"descriptor ulong0", Described{uint64(0), nil}, []byte{0x00, 0x44, 0x40}},
}

// TestWideVectors decodes the encodings the encoder does not choose.
func TestWideVectors(t *testing.T) {
	for _, tc := range wideVectors {
		t.Run(tc.name, func(t *testing.T) {
			v, n, err := DecodeValue(tc.b)
			if err != nil || n != len(tc.b) || !reflect.DeepEqual(v, tc.v) {
				t.Fatalf("decode = %#v, %d, %v; want %#v, %d", v, n, err, tc.v, len(tc.b))
			}
		})
	}
}

// TestLongEncodings checks the 32-bit forms the encoder picks past 255 bytes.
func TestLongEncodings(t *testing.T) {
	long := strings.Repeat("x", 300)
	cases := []struct {
		v    any
		head []byte
	}{
		{long, []byte{0xb1, 0, 0, 0x01, 0x2c}},                    // str32, size 300
		{Symbol(long), []byte{0xb3, 0, 0, 0x01, 0x2c}},            // sym32
		{[]byte(long), []byte{0xb0, 0, 0, 0x01, 0x2c}},            // vbin32
		{[]any{long}, []byte{0xd0, 0, 0, 0x01, 0x35, 0, 0, 0, 1}}, // list32: 4 + 5 + 300
		{Map{{"k", long}}, []byte{0xd1, 0, 0, 0x01, 0x38, 0, 0, 0, 2}},
		{Array{long}, []byte{0xf0, 0, 0, 0x01, 0x35, 0, 0, 0, 1, 0xb1}}, // str32 elements
		{Array{"a", long}, []byte{0xf0, 0, 0, 0x01, 0x3a, 0, 0, 0, 2, 0xb1, 0, 0, 0, 1, 'a'}},
	}
	for _, tc := range cases {
		b, err := EncodeValue(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, tc.head) {
			t.Fatalf("%T: head % x, want % x", tc.v, b[:len(tc.head)], tc.head)
		}
		v, n, err := DecodeValue(b)
		if err != nil || n != len(b) || !reflect.DeepEqual(v, tc.v) {
			t.Fatalf("%T: round trip = %v, %d, %v", tc.v, v, n, err)
		}
	}
}

// TestRoundTripNested round-trips compound values inside compound values.
func TestRoundTripNested(t *testing.T) {
	v := []any{
		Map{{Symbol("a"), Array{Map{{"x", int64(1)}}}}, {uint64(2), []any{[]any{}, Array{}}}},
		Described{uint64(0x75), []byte("payload")},
		Array{Array{uint16(1)}, Array{uint16(2), uint16(3)}},
		Array{[]any{"a"}, []any{}},
		math.MaxFloat64,
	}
	b, err := EncodeValue(v)
	if err != nil {
		t.Fatal(err)
	}
	got, n, err := DecodeValue(b)
	if err != nil || n != len(b) {
		t.Fatalf("decode: %v (%d of %d bytes)", err, n, len(b))
	}
	if !reflect.DeepEqual(got, v) {
		t.Fatalf("round trip = %#v\nwant %#v", got, v)
	}
}

// TestDecodeErrors feeds every kind of bad input and checks the message.
func TestDecodeErrors(t *testing.T) {
	deep := bytes.Repeat([]byte{0xc0, 0x00, 0x01}, MaxDepth+1) // nested list8s; sizes fixed below
	for i := 0; i <= MaxDepth; i++ {
		deep[3*i+1] = byte(3*(MaxDepth-i) + 1)
	}
	deep = append(deep, 0x40)
	cases := []struct {
		name, want string
		b          []byte
	}{
		{"empty", "decode constructor: need 1 bytes, 0 remaining", nil},
		{"unknown code", "unknown format code 0x01", []byte{0x01}},
		{"short uint", "decode uint: need 4 bytes, 2 remaining", []byte{0x70, 1, 2}},
		{"bad bool", "decode boolean: byte 0x02", []byte{0x56, 2}},
		{"bad char", "decode char: 0x0000d800 is not a Unicode code point", []byte{0x73, 0, 0, 0xd8, 0}},
		{"str size", "decode str8: size 5 exceeds remaining 1 bytes", []byte{0xa1, 5, 'a'}},
		{"str32 size", "decode str32: size 4096 exceeds remaining 0 bytes", []byte{0xb1, 0, 0, 0x10, 0}},
		{"str32 huge", "decode str32 size: 4294967295 is out of range", []byte{0xb1, 0xff, 0xff, 0xff, 0xff}},
		{"bad utf8", "decode str8: not valid UTF-8", []byte{0xa1, 1, 0xff}},
		{"bad symbol", "decode sym8: byte 0xc3 is not ASCII", []byte{0xa3, 2, 0xc3, 0xa9}},
		{"list size", "decode list: size 4096 exceeds remaining 12 bytes", append([]byte{0xd0, 0, 0, 0x10, 0}, make([]byte, 12)...)},
		{"list count", "decode list: count 200 exceeds remaining 1 bytes", []byte{0xc0, 2, 200, 0x40}},
		{"list small size", "decode list: size 0 is smaller than its count field", []byte{0xc0, 0}},
		{"list trailing", "decode list: 1 bytes left after 1 elements", []byte{0xc0, 3, 1, 0x40, 0x40}},
		{"list element", "decode list element 0: decode uint: need 4 bytes, 1 remaining", []byte{0xc0, 3, 1, 0x70, 1}},
		{"map odd", "decode map: odd element count 1", []byte{0xc1, 2, 1, 0x40}},
		{"map value", "decode map value 0: decode uint: need 4 bytes", []byte{0xc1, 3, 2, 0x40, 0x70}},
		{"map key", "decode map key 0: decode value: unknown format code 0x02", []byte{0xc1, 3, 2, 0x02, 0x40}},
		{"array width", "decode array: 3 uint elements need 12 bytes, 4 remaining", []byte{0xe0, 6, 3, 0x70, 0, 0, 0, 1}},
		{"array no constructor", "decode array constructor: need 1 bytes", []byte{0xe0, 1, 0}},
		{"array element", "decode array element 0: decode value: unknown format code 0x02", []byte{0xe0, 2, 1, 0x02}},
		{"array zero width", "decode array: 1 elements of zero-width type true", []byte{0xe0, 2, 1, 0x41}},
		{"array nested described", "nested described constructor", []byte{0xe0, 5, 1, 0x00, 0x44, 0x00, 0x40}},
		{"array bad descriptor", "decode array: decode descriptor: must be ulong or symbol, got str8", []byte{0xe0, 5, 1, 0x00, 0xa1, 0, 0x40}},
		{"descriptor type", "decode descriptor: must be ulong or symbol, got str8", []byte{0x00, 0xa1, 0, 0x40}},
		{"descriptor missing", "decode descriptor: no bytes remaining", []byte{0x00}},
		{"described value", "decode described 36: decode constructor: need 1 bytes", []byte{0x00, 0x53, 0x24}},
		{"depth", "nesting deeper than 32", deep},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := DecodeValue(tc.b)
			if err == nil {
				t.Fatalf("decode % x: no error", tc.b)
			}
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestEncodeErrors checks the values the encoder refuses.
func TestEncodeErrors(t *testing.T) {
	self := []any{nil}
	self[0] = self
	cases := []struct {
		name, want string
		v          any
	}{
		{"go int", "unsupported Go type int", 1},
		{"nested int", "encode list element 1: encode: unsupported Go type int", []any{nil, 1}},
		{"map key", "encode map key 0", Map{{1, nil}}},
		{"map value", "encode map value 0", Map{{nil, 1}}},
		{"mixed array", "element 1 is string, element 0 is main.Symbol", Array{Symbol("a"), "b"}},
		{"array type", "unsupported element type int", Array{1}},
		{"array element", "encode array element 0", Array{[]any{1}}},
		{"descriptor", "descriptor must be uint64 or Symbol, got string", Described{"x", nil}},
		{"array descriptor", "encode array: descriptor must be uint64 or Symbol, got string", Array{Described{"x", nil}}},
		{"array descriptors", "element 1 does not share element 0's descriptor",
			Array{Described{uint64(1), nil}, Described{uint64(2), nil}}},
		{"array of null", "unsupported element type <nil>", Array{nil}},
		{"array nested described", "unsupported element type main.Described",
			Array{Described{uint64(1), Described{uint64(1), nil}}}},
		{"cycle", "nesting deeper than 32", self},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := EncodeValue(tc.v)
			if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), "amqp.", "main."), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestMap checks Get and Set.
func TestMap(t *testing.T) {
	var m Map
	m.Set(Symbol("a"), 1)
	m.Set("b", 2)
	m.Set(Symbol("a"), 3)
	if v, ok := m.Get(Symbol("a")); !ok || v != 3 || len(m) != 2 {
		t.Fatalf("m = %v", m)
	}
	if _, ok := m.Get("a"); ok {
		t.Fatal("string key matched a symbol key")
	}
	if _, ok := m.Get([]byte("x")); ok {
		t.Fatal("uncomparable key matched")
	}
	if s := (UUID{0: 0x12, 15: 0xff}).String(); s != "12000000-0000-0000-0000-0000000000ff" {
		t.Fatalf("uuid = %s", s)
	}
}
