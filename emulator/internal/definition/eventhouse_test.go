package definition

import (
	"testing"
)

// Eventhouse destinations follow fabric-rest-api-specs
// eventstream/definitions/destination.json (EventhouseDestinationProperties
// and its two modes), fabric-docs add-destination-kql-database.md ("Direct
// ingestion" reads the default or a derived stream; "Event processing
// before ingestion" follows operators) and api-kusto-pull-destination.md
// (the API-only DirectIngestion example: kqlDatabaseId, tableName,
// connectionName, mappingRuleName).

const (
	// derivedAfterFilter is a DefaultStream and a DerivedStream "hot" fed
	// by the Filter "f" of filter.
	derivedAfterFilter = `[{"name":"main","type":"DefaultStream","inputNodes":[{"name":"src"}]},{"name":"hot","type":"DerivedStream","inputNodes":[{"name":"f"}]}]`
	dbID               = "44444444-4444-4444-4444-444444444444"
)

// house is an Eventhouse destination node reading input with props.
func house(input, props string) string {
	return `[{"name":"h","type":"Eventhouse","properties":{"itemId":"` + houseID + `"` + props + `},"inputNodes":[{"name":"` + input + `"}]}]`
}

// TestEventhouseProcessedIngestion: the default mode, with or without the
// field, reads operators, takes databaseName and tableName, and shows the
// mode in the definition.
func TestEventhouseProcessedIngestion(t *testing.T) {
	for _, mode := range []string{``, `,"dataIngestionMode":"ProcessedIngestion"`, `,"dataIngestionMode":"processedingestion"`} {
		r := newResolver()
		p := mustCompile(t, r, topo(srcCE, defSt, filter, house("f", mode+`,"databaseName":"db","tableName":"T"`)))
		b := r.bindings[0]
		if b.IngestionMode != ProcessedIngestion || b.Table != "T" || b.Database != "db" {
			t.Fatalf("mode %q: binding %+v", mode, b)
		}
		if p.Destinations[0].Target.Type != "Eventhouse" || len(p.Operators) == 0 {
			t.Fatalf("mode %q: plan %+v", mode, p)
		}
		props := p.Destinations[0].Node.Raw["properties"].(map[string]any)
		if want := map[string]string{``: "ProcessedIngestion", `,"dataIngestionMode":"ProcessedIngestion"`: "ProcessedIngestion", `,"dataIngestionMode":"processedingestion"`: "processedingestion"}[mode]; props["dataIngestionMode"] != want {
			t.Fatalf("mode %q: definition shows %v, want %s", mode, props["dataIngestionMode"], want)
		}
	}
}

// TestEventhouseDirectIngestion: DirectIngestion reads the DefaultStream
// or a DerivedStream; its database is kqlDatabaseId (or databaseName);
// connectionName and mappingRuleName stay in the definition as given.
func TestEventhouseDirectIngestion(t *testing.T) {
	direct := `,"dataIngestionMode":"DirectIngestion","kqlDatabaseId":"` + dbID + `","tableName":"Orders","connectionName":"eventhouse-conn-7f3a","mappingRuleName":"orders_json_map"`
	r := newResolver()
	p := mustCompile(t, r, topo(srcCE, defSt, `[]`, house("main", direct)))
	b := r.bindings[0]
	if b.IngestionMode != DirectIngestion || b.Table != "Orders" || b.Database != dbID {
		t.Fatalf("binding %+v", b)
	}
	if r.fields["database"] != "eventstream.json destinations[0].properties.kqlDatabaseId" {
		t.Fatalf("database field named %q", r.fields["database"])
	}
	props := p.Destinations[0].Node.Raw["properties"].(map[string]any)
	if props["mappingRuleName"] != "orders_json_map" || props["connectionName"] != "eventhouse-conn-7f3a" || props["dataIngestionMode"] != "DirectIngestion" {
		t.Fatalf("definition properties %v", props)
	}
	if len(p.Operators) != 0 {
		t.Fatalf("operators %s", p.Operators)
	}

	// From a DerivedStream fed by an operator: accepted, and it reads
	// through the chain that fills that stream.
	r = newResolver()
	p = mustCompile(t, r, topo(srcCE, derivedAfterFilter, filter, house("hot", `,"dataIngestionMode":"directingestion","databaseName":"db","tableName":"T"`)))
	if b := r.bindings[0]; b.IngestionMode != DirectIngestion || b.Database != "db" {
		t.Fatalf("binding %+v", b)
	}
	if len(p.Operators) == 0 {
		t.Fatalf("a DirectIngestion destination of a DerivedStream lost the stream's chain: %+v", p)
	}
}

// TestEventhouseRefusals: a mode Fabric does not have, DirectIngestion
// behind an operator, and DirectIngestion without a table.
func TestEventhouseRefusals(t *testing.T) {
	const at = "eventstream.json destinations[0]."
	cases := []struct {
		name, topo, field, msg string
	}{
		{"unknown mode", topo(srcCE, defSt, `[]`, house("main", `,"dataIngestionMode":"Pushed","tableName":"T"`)),
			at + "properties.dataIngestionMode", `"Pushed" is not ProcessedIngestion or DirectIngestion`},
		{"mode not a string", topo(srcCE, defSt, `[]`, house("main", `,"dataIngestionMode":7,"tableName":"T"`)),
			at + "properties.dataIngestionMode", `7 is not ProcessedIngestion or DirectIngestion`},
		{"direct behind an operator", topo(srcCE, defSt, filter, house("f", `,"dataIngestionMode":"DirectIngestion","tableName":"T"`)),
			at + "inputNodes", `it reads operator "f", but DirectIngestion has the Eventhouse pull a stream as it is, without processing; read the DefaultStream "main" or a DerivedStream (put one after "f"), or set dataIngestionMode to ProcessedIngestion`},
		{"direct without a table", topo(srcCE, defSt, `[]`, house("main", `,"dataIngestionMode":"DirectIngestion","mappingRuleName":"m"`)),
			at + "properties.tableName", "required: in Fabric the Eventhouse's Get data wizard picks DirectIngestion's table"},
		{"processed without a table", topo(srcCE, defSt, `[]`, house("main", `,"dataIngestionMode":"ProcessedIngestion"`)),
			at + "properties.tableName", "required: the emulator delivers into a named table"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile(t, newResolver(), c.topo)
			refusal(t, err, BadInput, c.field, c.msg)
		})
	}
}
