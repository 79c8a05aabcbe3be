package rows

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/hamba/avro/v2"
)

// Avro events, as the emulator reads them (Apache Avro 1.12 specification,
// "Object Container Files" and "Single-object encoding"):
//
//   - an object container file, its schema in its header: each record in it
//     is a row (Azure Stream Analytics, which Fabric's Eventstream runs,
//     reads Avro events this way, schema embedded);
//   - with a schema registered for the source (schema mode), also the
//     schema's binary encoding of one datum, or its single-object encoding
//     (0xC3 0x01, the schema's CRC-64-AVRO fingerprint little-endian, the
//     datum). A container file must then carry the registered schema.
//
// Values take the types Avro gives them: int and long are int64 (a
// Lakehouse bigint), float and double float64, boolean bool, string and
// enum string, timestamp-millis, timestamp-micros and date time.Time, a
// decimal a json.Number with its exact digits, bytes and fixed their
// base64 text, a record or map a nested object, an array []any, a union
// the value of its branch. A top-level value that is not a record makes
// the row {"value": v}.
//
// The library is hamba/avro (linkedin/goavro was the other candidate): one
// package reads container files with the codecs used here (null, deflate,
// snappy, zstandard), gives a schema's CRC-64-AVRO fingerprint for
// single-object encoding, and has a reader that walks a schema value by
// value, which the typed rows above are built from.

// avroMagic starts an object container file; singleObjectMagic a
// single-object encoded datum.
var (
	avroMagic         = []byte("Obj\x01")
	singleObjectMagic = []byte{0xC3, 0x01}
)

// maxAvroDepth bounds the nesting of a decoded value (MaxDepth's rule for
// rows).
const maxAvroDepth = MaxDepth

// avroAPI reads at most an event's size into one value.
var avroAPI = avro.Config{MaxByteSliceSize: MaxEventBytes, MaxSliceAllocSize: MaxEventBytes}.Freeze()

// AvroSchema is a parsed Avro schema and its single-object fingerprint.
type AvroSchema struct {
	schema      avro.Schema
	fingerprint []byte // CRC-64-AVRO, little-endian
	canonical   string // its Parsing Canonical Form
}

// ParseAvroSchema parses an Avro schema's JSON text.
func ParseAvroSchema(text string) (*AvroSchema, error) {
	s, err := avro.ParseWithCache(text, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("parse Avro schema: %w", err)
	}
	fp, err := s.FingerprintUsing(avro.CRC64AvroLE)
	if err != nil {
		return nil, fmt.Errorf("fingerprint Avro schema: %w", err)
	}
	return &AvroSchema{schema: s, fingerprint: fp, canonical: s.String()}, nil
}

// decodeAvroAny reads an Avro event with the first of the registered
// schemas that reads it (without any, as a container file alone).
func decodeAvroAny(value []byte, registered []*AvroSchema) ([]Row, error) {
	if len(registered) == 0 {
		return decodeAvro(value, nil)
	}
	var first error
	for _, s := range registered {
		rs, err := decodeAvro(value, s)
		if err == nil {
			return rs, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, fmt.Errorf("the event does not conform to the registered schema: %w", first)
}

// decodeAvro reads an Avro event by the rules above.
func decodeAvro(value []byte, registered *AvroSchema) ([]Row, error) {
	switch {
	case bytes.HasPrefix(value, avroMagic):
		return decodeContainer(value, registered)
	case registered == nil:
		return nil, errors.New("not an Avro object container file (no schema is registered for the source to read a bare datum with)")
	case bytes.HasPrefix(value, singleObjectMagic) && len(value) >= 10:
		if !bytes.Equal(value[2:10], registered.fingerprint) {
			return nil, errors.New("single-object encoding of another schema than the one registered (fingerprints differ)")
		}
		return decodeDatum(value[10:], registered.schema)
	}
	return decodeDatum(value, registered.schema)
}

// decodeContainer reads every record of an object container file.
func decodeContainer(value []byte, registered *AvroSchema) ([]Row, error) {
	c, err := readContainerHeader(value)
	if err != nil {
		return nil, err
	}
	if registered != nil && c.schema.String() != registered.canonical {
		return nil, errors.New("the container's schema is not the one registered for the source")
	}
	var out []Row
	for c.r.Peek(); c.r.Error == nil; c.r.Peek() {
		block, err := c.block()
		if err != nil {
			return nil, err
		}
		out, err = appendBlockRows(out, block, c.schema)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// decodeDatum reads one datum of schema s that fills b exactly.
func decodeDatum(b []byte, s avro.Schema) ([]Row, error) {
	r := newAvroReader(b)
	v, err := readAvro(r, s, 0)
	if err != nil {
		return nil, err
	}
	if r.Peek(); r.Error == nil {
		return nil, errors.New("bytes left after the datum")
	}
	return []Row{avroRow(v, s)}, nil
}

// newAvroReader reads b with the event-size limits.
func newAvroReader(b []byte) *avro.Reader {
	return avro.NewReader(nil, 0, avro.WithReaderConfig(avroAPI)).Reset(b)
}

// avroRow is the row of decoded value v of schema s.
func avroRow(v any, s avro.Schema) Row {
	if m, ok := v.(map[string]any); ok && s.Type() == avro.Record {
		return Row(m)
	}
	return Row{ValueField: v}
}
