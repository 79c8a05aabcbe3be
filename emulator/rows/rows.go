// Package rows turns Kafka record values into the rows that operators and
// destinations work on, one rule for every destination:
//
//   - a JSON object becomes a row with one field per member; numbers stay
//     json.Number (encoding/json's type; decoded with go-json for speed) so integers and decimals keep their kind, nested objects
//     are map[string]any and arrays []any;
//   - any other JSON value (array, string, number, boolean) becomes a row
//     with a single field "value" holding the record's bytes as text;
//   - bytes that are not JSON but are valid UTF-8 also become {"value": text};
//   - bytes that are not UTF-8 become {"value_base64": base64 text};
//   - a Kafka null value (a tombstone) becomes {"value": nil}.
//
// Nothing is dropped: every record yields exactly one row.
//
// Those are the rules of the Json input serialization, the default. A
// destination whose input serialization is Csv or Avro reads its events
// with Format.Decode instead (format.go, csv.go, avro*.go): an event makes
// as many rows as it holds, and one that does not parse is a DecodeError.
//
// The limits every row must meet to be stored in a table that Spark and
// delta-rs can read (MaxDepth, CheckName) and the largest event
// (MaxEventBytes) are in one place, limits.go; Check and CheckValue apply
// them, the produce route before it writes and the Delta writer before it
// commits.
package rows

import (
	"bytes"
	"encoding/base64"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
)

// Row is one event as named fields.
type Row map[string]any

// Field names used for values that are not JSON objects.
const (
	ValueField       = "value"
	ValueBase64Field = "value_base64"
)

// FromValue converts a record value to a Row by the package rules.
func FromValue(value []byte) Row {
	if value == nil {
		return Row{ValueField: nil}
	}
	trimmed := bytes.TrimSpace(value)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		if obj, ok := decodeObject(trimmed); ok {
			return obj
		}
	}
	if utf8.Valid(value) {
		return Row{ValueField: string(value)}
	}
	return Row{ValueBase64Field: base64.StdEncoding.EncodeToString(value)}
}

// decodeObject decodes one JSON object (numbers as json.Number): plain
// text in one pass (decodePlain), the rest with go-json.
func decodeObject(trimmed []byte) (Row, bool) {
	if row, ok := decodePlain(trimmed); ok {
		return row, true
	}
	dec := gojson.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || dec.More() {
		return nil, false
	}
	return Row(obj), true
}
