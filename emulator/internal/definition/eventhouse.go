package definition

import (
	"cmp"
	"encoding/json"
	"strings"
)

// An Eventhouse destination's properties.dataIngestionMode
// (fabric-rest-api-specs eventstream/definitions/destination.json,
// DataIngestionMode; fabric-docs add-destination-kql-database.md).
const (
	// ProcessedIngestion ("Event processing before ingestion") delivers
	// what the operators before the destination output, into
	// databaseName.tableName. It is the emulator's default when the
	// definition names no mode.
	ProcessedIngestion = "ProcessedIngestion"
	// DirectIngestion has the Eventhouse pull a stream itself, without any
	// processing, through a data connection (connectionName) and an
	// ingestion mapping (mappingRuleName).
	DirectIngestion = "DirectIngestion"
)

// IngestionMode canonicalises mode, in any case; "" is ProcessedIngestion.
// ok is false for any other value.
func IngestionMode(mode string) (canonical string, ok bool) {
	switch {
	case mode == "", strings.EqualFold(mode, ProcessedIngestion):
		return ProcessedIngestion, true
	case strings.EqualFold(mode, DirectIngestion):
		return DirectIngestion, true
	}
	return "", false
}

// eventhouse reads Eventhouse destination node n's binding.
//
// ProcessedIngestion takes databaseName and tableName. DirectIngestion
// reads a stream (the DefaultStream or a DerivedStream), never an
// operator; it takes tableName (Microsoft's API-only example names it; in
// the portal the Eventhouse's Get data wizard picks it, and the emulator
// has no wizard, so it is required) and the database as kqlDatabaseId or
// databaseName (the Eventhouse's default database without either).
// connectionName and mappingRuleName are kept in the definition as given:
// the emulator has no data connections, and it maps each field to the
// column of the same name rather than applying the named mapping.
func (c compiler) eventhouse(n *Node) (Binding, error) {
	raw := n.Props["dataIngestionMode"]
	given, isString := raw.(string)
	mode, ok := IngestionMode(given)
	if !ok || (raw != nil && !isString) {
		return Binding{}, BadNode(n, "properties.dataIngestionMode", "%v is not ProcessedIngestion or DirectIngestion", describeValue(raw))
	}
	b := Binding{Type: "Eventhouse", Table: n.Str("tableName"), Database: n.Str("databaseName"), IngestionMode: mode}
	if mode == DirectIngestion {
		if in := c.t.ByName[n.Inputs[0]]; in != nil && in.Kind == "operator" {
			return b, BadNode(n, "inputNodes", "it reads operator %q, but DirectIngestion has the Eventhouse pull a stream as it is, without processing; "+
				"read the DefaultStream %q or a DerivedStream (put one after %q), or set dataIngestionMode to ProcessedIngestion to ingest what %q outputs", in.Name, c.def0.Name, in.Name, in.Name)
		}
		b.Database = cmp.Or(b.Database, n.Str("kqlDatabaseId"))
	}
	if b.Table == "" {
		if mode == DirectIngestion {
			return b, BadNode(n, "properties.tableName", "required: in Fabric the Eventhouse's Get data wizard picks DirectIngestion's table; the emulator has none, so name the table here (as Microsoft's API-only DirectIngestion example does)")
		}
		return b, BadNode(n, "properties.tableName", "required: the emulator delivers into a named table")
	}
	if p, ok := n.Raw["properties"].(map[string]any); ok && raw == nil {
		p["dataIngestionMode"] = mode // the default, shown in the definition and topology
	}
	return b, nil
}

// describeValue quotes a string and prints anything else as JSON would
// show it.
func describeValue(v any) string {
	if s, ok := v.(string); ok {
		return `"` + s + `"`
	}
	b, _ := json.Marshal(v) // a value decoded from JSON marshals
	return string(b)
}
