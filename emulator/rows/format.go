package rows

import (
	"errors"
	"fmt"
)

// Input formats a destination reads its events with: Microsoft's
// serialization types of inputSerialization (fabric-rest-api-specs
// eventstream/definitions/serialization.json; fabric-docs "Supported data
// formats": JSON, CSV and Avro are parsed, to every destination).
const (
	JSON = "Json"
	CSV  = "Csv"
	Avro = "Avro"
)

// Format is how a destination turns record values into rows.
//
// The zero Format is JSON, the package rules of FromValue: every record
// makes one row and nothing fails. CSV and Avro parse the value as the
// format says and may make several rows of one event (the lines of a CSV
// text, the records of an Avro container file) or none; a value that does
// not parse is a *DecodeError, and the caller drops the event and counts
// it as a deserialization error, as Fabric does.
type Format struct {
	// Type is JSON (""), CSV or Avro.
	Type string
	// Delimiter is CSV's field delimiter (',' when 0).
	Delimiter rune
	// NoHeader is CSV's WithoutHeaders: the columns are named column1,
	// column2, … instead of by a first line.
	NoHeader bool
	// Schemas are the Avro schemas registered for the sources (schema
	// mode): a value must then be one of them as a container file, a
	// binary datum or a single-object datum, the first that reads it
	// whole winning. None: only container files, each with its own
	// schema, are read.
	Schemas []*AvroSchema
}

// IsJSON reports whether f is the JSON format (FromValue's rules).
func (f Format) IsJSON() bool { return f.Type == "" || f.Type == JSON }

// DecodeError is why an event did not deserialize in its format.
type DecodeError struct {
	Format string // CSV or Avro
	Err    error
}

// Error renders the failure as a runtime log says it.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("the event is not valid %s: %v", e.Format, e.Err)
}

// Unwrap returns the underlying failure.
func (e *DecodeError) Unwrap() error { return e.Err }

// errNilValue is a Kafka null value (a tombstone) read as CSV or Avro.
var errNilValue = errors.New("the record has no value")

// Decode converts value to rows by f. JSON never fails and makes one row
// (FromValue); CSV and Avro fail with a *DecodeError.
func (f Format) Decode(value []byte) (out []Row, err error) {
	if f.IsJSON() {
		return []Row{FromValue(value)}, nil
	}
	defer func() {
		if r := recover(); r != nil { // a decoder bug must not stop the drain
			out, err = nil, fmt.Errorf("decoder panic: %v", r)
		}
		if err != nil {
			err = &DecodeError{Format: f.Type, Err: err}
		}
	}()
	if value == nil {
		return nil, errNilValue
	}
	switch f.Type {
	case CSV:
		return decodeCSV(value, f.Delimiter, !f.NoHeader)
	case Avro:
		return decodeAvroAny(value, f.Schemas)
	}
	return nil, fmt.Errorf("unknown format %q", f.Type)
}
