package rows

import (
	"errors"
	"strings"
	"testing"

	"github.com/hamba/avro/v2/ocf"
)

// checkDecoded fails when a decoder panicked (Decode turns a panic into an
// error so a drain survives it) or made a row that Check refuses.
func checkDecoded(t *testing.T, rs []Row, err error) {
	t.Helper()
	var de *DecodeError
	if err != nil && (!errors.As(err, &de) || strings.Contains(err.Error(), "decoder panic")) {
		t.Fatalf("decode: %v", err)
	}
	if err != nil && len(rs) > 0 {
		t.Fatalf("rows %v with error %v", rs, err)
	}
}

// FuzzDecodeCSV: the CSV decoder never panics, answers a DecodeError or
// rows, and each row has its header's columns.
func FuzzDecodeCSV(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "a;b\r\n\"x;\"\"y\";z", "\xef\xbb\xbfa\n", "a,a\n", "", "\"", "a\tb\n1\t2"} {
		f.Add([]byte(s), byte(','), false)
	}
	f.Fuzz(func(t *testing.T, v []byte, delim byte, noHeader bool) {
		d := rune(delim)
		if !strings.ContainsRune(",;|\t ", d) {
			d = ','
		}
		rs, err := Format{Type: CSV, Delimiter: d, NoHeader: noHeader}.Decode(v)
		checkDecoded(t, rs, err)
		for _, r := range rs {
			if len(r) != len(rs[0]) {
				t.Fatalf("rows of %d and %d columns", len(rs[0]), len(r))
			}
		}
	})
}

// FuzzDecodeAvro: the Avro decoder never panics, with or without a
// registered schema, and its rows pass Check.
func FuzzDecodeAvro(f *testing.F) {
	reg, err := ParseAvroSchema(readingSchema)
	if err != nil {
		f.Fatal(err)
	}
	for _, codec := range []ocf.CodecName{ocf.Null, ocf.Deflate, ocf.Snappy} {
		f.Add(containerOf(f, readingSchema, codec, reading(1), reading(2)), false)
	}
	f.Add([]byte{0xC3, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 2}, true)
	f.Add([]byte("Obj\x01\x00"), false)
	f.Fuzz(func(t *testing.T, v []byte, registered bool) {
		fm := Format{Type: Avro}
		if registered {
			fm.Schemas = []*AvroSchema{reg}
		}
		rs, err := fm.Decode(v)
		checkDecoded(t, rs, err)
	})
}
