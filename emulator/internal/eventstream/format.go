package eventstream

import (
	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// Format is how a destination of spec s turns record values into rows: in
// schema mode, Avro validated against the registered schemas; else its
// serialization's (Json when it has none, or when its type is one
// Eventstream does not parse, which only reaches an Eventhouse in
// DirectIngestion mode).
func (s Spec) Format() rows.Format {
	if len(s.Schemas) > 0 {
		f := rows.Format{Type: rows.Avro}
		for _, text := range s.Schemas {
			if sc, err := rows.ParseAvroSchema(text); err == nil { // checked when deployed
				f.Schemas = append(f.Schemas, sc)
			}
		}
		return f
	}
	ser := s.Serialization
	if ser == nil {
		return rows.Format{}
	}
	switch ser.Type {
	case definition.SerializationCSV:
		f := rows.Format{Type: rows.CSV, NoHeader: ser.Format == definition.CSVWithoutHeaders}
		if ser.FieldDelimiter != "" {
			f.Delimiter = []rune(ser.FieldDelimiter)[0]
		}
		return f
	case definition.SerializationAvro:
		return rows.Format{Type: rows.Avro}
	}
	return rows.Format{}
}
