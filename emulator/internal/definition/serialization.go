package definition

import (
	"fmt"
	"slices"
	"strings"
)

// Serialization types of a node's inputSerialization: Microsoft's three
// (fabric-rest-api-specs eventstream/definitions/serialization.json),
// which Eventstream parses and routes to every destination, and the
// emulator's extension for what a source sends that Eventstream does not
// parse (fabric-docs, "Supported data formats"): Psv and Tsv, text it
// ingests directly into an Eventhouse or forwards to a custom endpoint,
// and Raw, any other bytes, which only a custom endpoint receives.
const (
	SerializationJSON = "Json"
	SerializationCSV  = "Csv"
	SerializationAvro = "Avro"
	SerializationPSV  = "Psv"
	SerializationTSV  = "Tsv"
	SerializationRaw  = "Raw"
)

// CSV formats (a Csv serialization's properties.format).
const (
	CSVWithHeaders    = "WithHeaders"
	CSVWithoutHeaders = "WithoutHeaders"
)

// parsedTypes are the types Eventstream parses; sourceOnlyTypes the
// extension's, which only a source may declare.
var (
	parsedTypes     = []string{SerializationJSON, SerializationCSV, SerializationAvro}
	sourceOnlyTypes = []string{SerializationPSV, SerializationTSV, SerializationRaw}
)

// csvDelimiters are the field delimiters a Csv serialization may name
// (those of Azure Stream Analytics' CSV input, which Eventstream runs:
// comma, semicolon, space, tab, vertical bar); "tab" is the tab's name.
var csvDelimiters = []string{",", ";", " ", "\t", "|", "tab"}

// Serialization is a node's inputSerialization, checked and canonical.
type Serialization struct {
	// Type is one of the Serialization* types.
	Type string `json:"type"`
	// FieldDelimiter is a Csv serialization's delimiter ("\t" for "tab").
	FieldDelimiter string `json:"fieldDelimiter,omitempty"`
	// Format is a Csv serialization's CSVWithHeaders ("" means it) or
	// CSVWithoutHeaders.
	Format string `json:"format,omitempty"`
}

// Parsed reports whether Eventstream parses events of s (Json, Csv,
// Avro); a nil s is Json.
func (s *Serialization) Parsed() bool { return s == nil || slices.Contains(parsedTypes, s.Type) }

// TypeName is s's type, Json for nil.
func (s *Serialization) TypeName() string {
	if s == nil {
		return SerializationJSON
	}
	return s.Type
}

// equal reports whether a and b read events alike.
func (s *Serialization) equal(o *Serialization) bool {
	if s == nil || o == nil {
		return s.TypeName() == o.TypeName() && s.TypeName() == SerializationJSON
	}
	return *s == *o
}

// SerializationOf reads node n's inputSerialization (nil when it has
// none). The type is matched in any case; encoding may only be UTF8 (the
// spec's one value); a Csv serialization names its fieldDelimiter.
func SerializationOf(n *Node) (*Serialization, error) {
	raw, ok := n.Props["inputSerialization"]
	if !ok || raw == nil {
		return nil, nil
	}
	const field = "properties.inputSerialization"
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, BadNode(n, field, "inputSerialization must be an object with a type")
	}
	typ, err := serializationType(n, obj)
	if err != nil {
		return nil, err
	}
	props, ok := obj["properties"].(map[string]any)
	if obj["properties"] != nil && !ok {
		return nil, BadNode(n, field+".properties", "properties must be an object")
	}
	if enc := str(props, "encoding"); enc != "" && !strings.EqualFold(enc, "UTF8") {
		return nil, BadNode(n, field+".properties.encoding", "encoding %q is not supported: UTF8 is the only encoding", enc)
	}
	s := &Serialization{Type: typ}
	if typ == SerializationCSV {
		if err := csvSettings(n, props, s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// serializationType is the canonical type of inputSerialization obj.
func serializationType(n *Node, obj map[string]any) (string, error) {
	t := str(obj, "type")
	allowed := parsedTypes
	if n.Kind == "source" {
		allowed = append(slices.Clone(parsedTypes), sourceOnlyTypes...)
	}
	for _, a := range allowed {
		if strings.EqualFold(t, a) {
			return a, nil
		}
	}
	return "", BadNode(n, "properties.inputSerialization.type", "serialization type %q is not one of %s", t, strings.Join(allowed, ", "))
}

// csvSettings reads a Csv serialization's fieldDelimiter and format.
func csvSettings(n *Node, props map[string]any, s *Serialization) error {
	const field = "properties.inputSerialization.properties"
	d, ok := props["fieldDelimiter"].(string)
	if !ok || !slices.Contains(csvDelimiters, d) {
		return BadNode(n, field+".fieldDelimiter", "fieldDelimiter %s is not one of %q", describeDelimiter(props["fieldDelimiter"]), csvDelimiters)
	}
	if d == "tab" {
		d = "\t"
	}
	s.FieldDelimiter = d
	switch f := str(props, "format"); {
	case f == "" || strings.EqualFold(f, CSVWithHeaders):
	case strings.EqualFold(f, CSVWithoutHeaders):
		s.Format = CSVWithoutHeaders
	default:
		return BadNode(n, field+".format", "format %q is not %s or %s", f, CSVWithHeaders, CSVWithoutHeaders)
	}
	return nil
}

// describeDelimiter renders a fieldDelimiter value for a refusal.
func describeDelimiter(v any) string {
	if v == nil {
		return "(missing)"
	}
	return fmt.Sprintf("%q", fmt.Sprint(v))
}
