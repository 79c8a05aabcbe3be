package rows

// Avro events (Apache Avro 1.12 specification: object container files,
// single-object encoding; https://learn.microsoft.com/fabric/real-time-intelligence/event-streams/data-formats;
// decimal precision: https://learn.microsoft.com/fabric/real-time-intelligence/schema-sets/schema-registry-limitations),
// written here by a Go Avro writer (hamba/avro's encoder and its ocf package).

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
)

const readingSchema = `{"type":"record","name":"Reading","namespace":"t","fields":[
 {"name":"id","type":"long"},
 {"name":"n","type":"int"},
 {"name":"temp","type":"double"},
 {"name":"ok","type":"boolean"},
 {"name":"city","type":["null","string"]},
 {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
 {"name":"raw","type":"bytes"},
 {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}},
 {"name":"tags","type":{"type":"array","items":"string"}},
 {"name":"attrs","type":{"type":"map","values":"long"}},
 {"name":"geo","type":["null",{"type":"record","name":"Geo","fields":[{"name":"lat","type":"float"}]}]}
]}`

// reading is one datum of readingSchema as the writer takes it.
func reading(id int64) map[string]any {
	return map[string]any{
		"id": id, "n": int32(7), "temp": 21.5, "ok": true, "city": "Oslo",
		"at": time.UnixMilli(1_700_000_000_123).UTC(), "price": big.NewRat(-12345, 100), "raw": []byte{0, 1, 2},
		"kind": "B", "tags": []any{"x", "y"}, "attrs": map[string]any{"k": int64(3)},
		"geo": map[string]any{"t.Geo": map[string]any{"lat": float32(59.5)}},
	}
}

// readingRow is the row reading(id) becomes.
func readingRow(id int64) Row {
	return Row{
		"id": id, "n": int64(7), "temp": 21.5, "ok": true, "city": "Oslo",
		"at": time.UnixMilli(1_700_000_000_123).UTC(), "price": json.Number("-123.45"), "raw": "AAEC",
		"kind": "B", "tags": []any{"x", "y"}, "attrs": map[string]any{"k": int64(3)},
		"geo": map[string]any{"lat": 59.5},
	}
}

func containerOf(t testing.TB, schema string, codec ocf.CodecName, data ...map[string]any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := ocf.NewEncoder(schema, &buf, ocf.WithCodec(codec), ocf.WithBlockLength(2))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range data {
		if err := enc.Encode(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDecodeAvroContainer(t *testing.T) {
	for _, codec := range []ocf.CodecName{ocf.Null, ocf.Deflate, ocf.Snappy, ocf.ZStandard} {
		v := containerOf(t, readingSchema, codec, reading(1), reading(2), reading(3))
		got, err := Format{Type: Avro}.Decode(v)
		if err != nil {
			t.Fatalf("%s: %v", codec, err)
		}
		want := []Row{readingRow(1), readingRow(2), readingRow(3)}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: rows\n%#v\nwant\n%#v", codec, got, want)
		}
	}
}

func TestDecodeAvroWithRegisteredSchema(t *testing.T) {
	reg, err := ParseAvroSchema(readingSchema)
	if err != nil {
		t.Fatal(err)
	}
	s := avro.MustParse(readingSchema)
	datum, err := avro.Marshal(s, reading(9))
	if err != nil {
		t.Fatal(err)
	}
	fp, _ := s.FingerprintUsing(avro.CRC64AvroLE)
	single := append(append([]byte{0xC3, 0x01}, fp...), datum...)
	f := Format{Type: Avro, Schemas: []*AvroSchema{reg}}
	for name, v := range map[string][]byte{"binary": datum, "single-object": single, "container": containerOf(t, readingSchema, ocf.Null, reading(9))} {
		got, err := f.Decode(v)
		if err != nil || !reflect.DeepEqual(got, []Row{readingRow(9)}) {
			t.Errorf("%s: %#v, %v", name, got, err)
		}
	}
	other := containerOf(t, `{"type":"record","name":"O","fields":[{"name":"id","type":"long"}]}`, ocf.Null, map[string]any{"id": int64(1)})
	wrongFP := append(append([]byte{0xC3, 0x01}, make([]byte, 8)...), datum...)
	for name, v := range map[string][]byte{
		"container of another schema": other, "trailing byte": append(append([]byte{}, datum...), 0),
		"truncated": datum[:len(datum)-3], "fingerprint of another schema": wrongFP,
	} {
		if rs, err := f.Decode(v); !isAvroError(err) {
			t.Errorf("%s: rows %v, error %v; want an Avro DecodeError", name, rs, err)
		}
	}
}

func TestDecodeAvroRefuses(t *testing.T) {
	good := containerOf(t, readingSchema, ocf.Deflate, reading(1))
	for name, v := range map[string][]byte{
		"JSON text":               []byte(`{"id":1}`),
		"bare datum, no schema":   {0x02, 0x0e},
		"header only":             good[:12],
		"cut block":               good[:len(good)-20],
		"bad sync":                append(append([]byte{}, good[:len(good)-1]...), good[len(good)-1]^0xff),
		"tombstone":               nil,
		"precision over 28":       containerOf(t, `{"type":"record","name":"D","fields":[{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":30,"scale":0}}]}`, ocf.Null, map[string]any{"d": big.NewRat(1, 1)}),
		"unknown codec in header": bytes.Replace(containerOf(t, readingSchema, ocf.Null, reading(1)), []byte("\x08null"), []byte("\x08lzma"), 1),
	} {
		if rs, err := (Format{Type: Avro}).Decode(v); !isAvroError(err) {
			t.Errorf("%s: rows %v, error %v; want an Avro DecodeError", name, rs, err)
		}
	}
}

func isAvroError(err error) bool {
	var de *DecodeError
	return errors.As(err, &de) && de.Format == Avro
}

// TestDecodeAvroWithSeveralRegisteredSchemas: in schema mode an event
// passes when one of the sources' schemas reads it whole.
func TestDecodeAvroWithSeveralRegisteredSchemas(t *testing.T) {
	const small = `{"type":"record","name":"S","fields":[{"name":"s","type":"string"}]}`
	a, err := ParseAvroSchema(small)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseAvroSchema(readingSchema)
	if err != nil {
		t.Fatal(err)
	}
	datum, err := avro.Marshal(avro.MustParse(readingSchema), reading(4))
	if err != nil {
		t.Fatal(err)
	}
	f := Format{Type: Avro, Schemas: []*AvroSchema{a, b}}
	if got, err := f.Decode(datum); err != nil || !reflect.DeepEqual(got, []Row{readingRow(4)}) {
		t.Fatalf("%#v, %v", got, err)
	}
	if _, err := f.Decode([]byte("not avro at all, but long enough to read")); !isAvroError(err) || !strings.Contains(err.Error(), "does not conform to the registered schema") {
		t.Fatalf("error %v; want a non-conformance", err)
	}
}
