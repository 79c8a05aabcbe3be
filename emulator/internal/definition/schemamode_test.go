package definition

// Schema mode's rules (https://learn.microsoft.com/fabric/real-time-intelligence/schema-sets/schema-registry-limitations).

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// schemaResolver resolves every ref to the same schema, or fails.
type schemaResolver struct {
	*fakeResolver
	err  error
	refs []SchemaRef
}

func (s *schemaResolver) EventSchema(_ context.Context, _ string, ref SchemaRef) (string, error) {
	s.refs = append(s.refs, ref)
	return `{"type":"record","name":"R","fields":[]}`, s.err
}

const (
	srcSchema = `[{"name":"src","type":"CustomEndpoint","properties":{"eventSchema":{"eventSchemaSetId":"set-1","schemaName":"R","version":2}}}]`
	houseDst  = `[{"name":"h","type":"Eventhouse","properties":{"itemId":"` + houseID + `","databaseName":"db","tableName":"T"},"inputNodes":[{"name":"main"}]}]`
)

func TestSchemaModePlan(t *testing.T) {
	r := &schemaResolver{fakeResolver: newResolver()}
	p := mustCompile(t, r, topo(srcSchema, defSt, `[]`, houseDst))
	if len(r.refs) != 1 || r.refs[0] != (SchemaRef{EventSchemaSetID: "set-1", SchemaName: "R", Version: 2}) {
		t.Fatalf("refs %+v", r.refs)
	}
	if len(p.Schemas) != 1 || p.Destinations[0].Serialization.TypeName() != SerializationAvro {
		t.Fatalf("schemas %v, destination reads %+v", p.Schemas, p.Destinations[0].Serialization)
	}
	r.err = errors.New("the set has no schema \"R\"")
	_, err := compile(t, r, topo(srcSchema, defSt, `[]`, houseDst))
	refusal(t, err, BadInput, "eventstream.json sources[0].properties.eventSchema", `the set has no schema "R"`)
}

func TestSchemaModeRefusals(t *testing.T) {
	const es = "eventstream.json "
	hub := `[{"name":"src","type":"SampleData","properties":{"type":"Bicycles","eventSchema":{"eventSchemaSetId":"s","schemaName":"R"}}}]`
	for _, c := range []struct{ name, topo, field, msg string }{
		{"Lakehouse", topo(srcSchema, defSt, `[]`, lakeDst), es + "destinations[0].type", `destination "lake" (Lakehouse) in schema mode: schema-validated events go only to`},
		{"SampleData source", topo(hub, defSt, `[]`, houseDst), es + "sources[0].type", "only CustomEndpoint and AzureEventHub sources take a registered schema"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile(t, &schemaResolver{fakeResolver: newResolver()}, c.topo)
			refusal(t, err, SchemaModeNotSupported, c.field, c.msg)
		})
	}
	bad := `[{"name":"src","type":"CustomEndpoint","properties":{"eventSchema":{"eventSchemaSetId":"s","schemaName":"R","version":1.5}}}]`
	_, err := compile(t, &schemaResolver{fakeResolver: newResolver()}, topo(bad, defSt, `[]`, houseDst))
	refusal(t, err, BadInput, es+"sources[0].properties.eventSchema.version", "want a version number")

	// Set or unset after creation.
	prev := Parts{Topology: json.RawMessage(topo(srcCE, defSt, `[]`, houseDst))}
	in := Input{Parts: Parts{Topology: json.RawMessage(topo(srcSchema, defSt, `[]`, houseDst))}, WorkspaceID: "ws-1", StreamName: "es-stream", Previous: &prev}
	_, err = Compile(context.Background(), in, &schemaResolver{fakeResolver: newResolver()})
	refusal(t, err, SchemaModeNotSupported, es+"sources[0].properties.eventSchema", "schema mode is chosen when the Eventstream is created")
}
