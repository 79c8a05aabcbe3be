package definition

// Formats per destination (fabric-docs, "Supported data formats",
// https://learn.microsoft.com/fabric/real-time-intelligence/event-streams/data-formats)
// and inputSerialization as the spec has it (fabric-rest-api-specs
// eventstream/definitions/serialization.json).

import (
	"strings"
	"testing"
)

// srcSer is a CustomEndpoint source "src" with inputSerialization ser.
func srcSer(ser string) string {
	return `[{"name":"src","type":"CustomEndpoint","properties":{"inputSerialization":` + ser + `}}]`
}

// lakeSer is a Lakehouse destination reading main, with props added.
func lakeSer(props string) string {
	return `[{"name":"lake","type":"Lakehouse","properties":{"itemId":"` + lakeID + `","deltaTable":"t1"` + props + `},"inputNodes":[{"name":"main"}]}]`
}

const (
	avroSer = `{"type":"Avro","properties":{}}`
	psvSer  = `{"type":"Psv"}`
	rawSer  = `{"type":"raw"}`
	ceOut   = `{"name":"out","type":"CustomEndpoint","inputNodes":[{"name":"main"}]}`
)

// TestDestinationSerialization: a destination reads by its own
// inputSerialization, else by its sources'; the Csv settings are kept.
func TestDestinationSerialization(t *testing.T) {
	p := mustCompile(t, newResolver(), topo(srcSer(avroSer), defSt, `[]`, lakeSer("")))
	if s := p.Destinations[0].Serialization; s == nil || s.Type != SerializationAvro {
		t.Fatalf("destination reads %+v; want its source's Avro", s)
	}
	csv := `,"inputSerialization":{"type":"csv","properties":{"fieldDelimiter":"tab","format":"WithoutHeaders","encoding":"UTF8"}}`
	p = mustCompile(t, newResolver(), topo(srcSer(avroSer), defSt, `[]`, lakeSer(csv)))
	if s := p.Destinations[0].Serialization; s == nil || *s != (Serialization{Type: SerializationCSV, FieldDelimiter: "\t", Format: CSVWithoutHeaders}) {
		t.Fatalf("destination reads %+v; want its own Csv, tab, without headers", s)
	}
	p = mustCompile(t, newResolver(), topo(srcCE, defSt, `[]`, lakeSer("")))
	if s := p.Destinations[0].Serialization; s != nil {
		t.Fatalf("destination reads %+v; want nil (Json)", s)
	}
	// PSV to an Eventhouse in DirectIngestion mode and to a custom endpoint; raw bytes to a custom endpoint.
	direct := `,"dataIngestionMode":"DirectIngestion","kqlDatabaseId":"` + dbID + `","tableName":"Orders"`
	mustCompile(t, newResolver(), topo(srcSer(psvSer), defSt, `[]`, "["+strings.Trim(house("main", direct), "[]")+","+ceOut+"]"))
	mustCompile(t, newResolver(), topo(srcSer(rawSer), defSt, `[]`, "["+ceOut+"]"))
}

// TestFormatRefusals: each combination the data-formats page rules out,
// and each bad inputSerialization, refused naming the node and the field.
func TestFormatRefusals(t *testing.T) {
	const es = "eventstream.json "
	processed := `,"dataIngestionMode":"ProcessedIngestion","databaseName":"db","tableName":"Orders"`
	cases := []struct {
		name, topo string
		kind       Kind
		field, msg string
	}{
		{"PSV to a Lakehouse", topo(srcSer(psvSer), defSt, `[]`, lakeSer("")), FormatNotSupported, es + "destinations[0]", `destination "lake" (Lakehouse) cannot take Psv events: Psv and Tsv events go only to an Eventhouse in DirectIngestion mode or to a custom endpoint`},
		{"TSV to a processed Eventhouse", topo(srcSer(`{"type":"Tsv"}`), defSt, `[]`, house("main", processed)), FormatNotSupported, es + "destinations[0]", "cannot take Tsv events"},
		{"raw bytes to an Activator", topo(srcSer(rawSer), defSt, `[]`, `[{"name":"act","type":"Activator","properties":{"itemId":"`+flowID+`"},"inputNodes":[{"name":"main"}]}]`), FormatNotSupported, es + "destinations[0]", "cannot take Raw events: events Eventstream does not parse go only to a custom endpoint"},
		{"raw bytes, Lakehouse says Json", topo(srcSer(rawSer), defSt, `[]`, lakeSer(`,"inputSerialization":{"type":"Json"}`)), FormatNotSupported, es + "destinations[0].properties.inputSerialization", "its sources send events Eventstream does not parse"},
		{"PSV through an operator", topo(srcSer(psvSer), defSt, filter, "["+ceOut+"]"), FormatNotSupported, es + "operators[0]", "operators transform only Json, Csv and Avro events"},
		{"PSV into a DerivedStream", topo(srcSer(psvSer), `[{"name":"main","type":"DefaultStream","inputNodes":[{"name":"src"}]},{"name":"d","type":"DerivedStream","inputNodes":[{"name":"main"}]}]`, `[]`, "["+ceOut+"]"), FormatNotSupported, es + "streams[1]", "a DerivedStream is filled by operators"},
		{"PSV declared by a destination", topo(srcCE, defSt, `[]`, lakeSer(`,"inputSerialization":{"type":"Psv"}`)), BadInput, es + "destinations[0].properties.inputSerialization.type", `serialization type "Psv" is not one of Json, Csv, Avro`},
		{"unknown type", topo(srcSer(`{"type":"Xml"}`), defSt, `[]`, "["+ceOut+"]"), BadInput, es + "sources[0].properties.inputSerialization.type", `"Xml" is not one of Json, Csv, Avro, Psv, Tsv, Raw`},
		{"not an object", topo(srcSer(`"Json"`), defSt, `[]`, "["+ceOut+"]"), BadInput, es + "sources[0].properties.inputSerialization", "must be an object with a type"},
		{"UTF16", topo(srcSer(`{"type":"Json","properties":{"encoding":"UTF16"}}`), defSt, `[]`, "["+ceOut+"]"), BadInput, es + "sources[0].properties.inputSerialization.properties.encoding", `encoding "UTF16" is not supported: UTF8 is the only encoding`},
		{"CSV without a delimiter", topo(srcSer(`{"type":"Csv","properties":{}}`), defSt, `[]`, "["+ceOut+"]"), BadInput, es + "sources[0].properties.inputSerialization.properties.fieldDelimiter", "fieldDelimiter (missing) is not one of"},
		{"CSV with a colon", topo(srcSer(`{"type":"Csv","properties":{"fieldDelimiter":":"}}`), defSt, `[]`, "["+ceOut+"]"), BadInput, es + "sources[0].properties.inputSerialization.properties.fieldDelimiter", `fieldDelimiter ":" is not one of`},
		{"CSV format", topo(srcSer(`{"type":"Csv","properties":{"fieldDelimiter":",","format":"Headers"}}`), defSt, `[]`, "["+ceOut+"]"), BadInput, es + "sources[0].properties.inputSerialization.properties.format", `format "Headers" is not WithHeaders or WithoutHeaders`},
		{"sources disagree", topo(`[{"name":"src","type":"CustomEndpoint","properties":{"inputSerialization":`+avroSer+`}},{"name":"s2","type":"CustomEndpoint","properties":{"inputSerialization":{"type":"Json"}}}]`,
			`[{"name":"main","type":"DefaultStream","inputNodes":[{"name":"src"},{"name":"s2"}]}]`, `[]`, lakeSer("")), BadInput, es + "destinations[0].properties.inputSerialization",
			`the sources send different formats (CustomEndpoint "src": Avro, CustomEndpoint "s2": Json); say which this destination reads`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile(t, newResolver(), c.topo)
			refusal(t, err, c.kind, c.field, c.msg)
		})
	}
}
