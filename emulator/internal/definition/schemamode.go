package definition

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Schema mode (fabric-docs, "Schema Registry - known limitations",
// https://learn.microsoft.com/fabric/real-time-intelligence/schema-sets/schema-registry-limitations):
// an Eventstream whose sources name schemas registered in an Event Schema
// Set validates their events against them. Schema mode is chosen when the
// Eventstream is created and cannot be set or unset later; schema-enabled
// and other sources do not mix; only CustomEndpoint, Azure SQL CDC and
// Azure Event Hubs sources take a schema (the emulator runs the first and
// the last), and only an Eventhouse in push mode (ProcessedIngestion), a
// custom endpoint and a DerivedStream receive schema-validated events.
// How a source names its schema is not in Microsoft's published spec: the
// emulator reads a source property eventSchema (SchemaRef).

// SchemaRef is a source's eventSchema property: the Event Schema Set, the
// schema's name in it, and its version (0 or left out: the latest).
type SchemaRef struct {
	EventSchemaSetID string `json:"eventSchemaSetId"`
	WorkspaceID      string `json:"workspaceId,omitempty"` // "" for the Eventstream's
	SchemaName       string `json:"schemaName"`
	Version          int    `json:"version,omitempty"`
}

// SchemaResolver is what a Resolver implements to resolve schema refs
// (the Avro text of the schema ref names, or an error saying why not).
type SchemaResolver interface {
	EventSchema(ctx context.Context, ws string, ref SchemaRef) (string, error)
}

// schemaSourceTypes take a schema (of those the emulator runs).
var schemaSourceTypes = []string{"CustomEndpoint", "AzureEventHub"}

// schemaRefOf reads source n's eventSchema (nil without).
func schemaRefOf(n *Node) (*SchemaRef, error) {
	raw, ok := n.Props["eventSchema"]
	if !ok || raw == nil {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	const field = "properties.eventSchema"
	if !ok {
		return nil, BadNode(n, field, "want {eventSchemaSetId, schemaName, version}")
	}
	ref := &SchemaRef{EventSchemaSetID: str(m, "eventSchemaSetId"), WorkspaceID: str(m, "workspaceId"), SchemaName: str(m, "schemaName")}
	if ref.EventSchemaSetID == "" || ref.SchemaName == "" {
		return nil, BadNode(n, field, "eventSchemaSetId and schemaName are required")
	}
	if v, ok := m["version"]; ok && v != nil {
		n2, ok := versionNumber(v)
		if !ok {
			return nil, BadNode(n, field+".version", "want a version number")
		}
		ref.Version = n2
	}
	return ref, nil
}

// versionNumber reads a whole, non-negative version number however the
// topology's JSON was decoded.
func versionNumber(v any) (int, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case json.Number:
		g, err := x.Float64()
		if err != nil {
			return 0, false
		}
		f = g
	default:
		return 0, false
	}
	if f < 0 || f > 1<<31 || f != float64(int(f)) {
		return 0, false
	}
	return int(f), true
}

// schemaMode checks and resolves the sources' schemas; in schema mode
// every destination reads Avro validated against them (p.Schemas).
func (c compiler) schemaMode(ctx context.Context, ws string, p *Plan, r Resolver, previous *Topology) error {
	refs, err := c.schemaRefs()
	if err != nil {
		return err
	}
	was, err := hadSchemaMode(previous)
	if err != nil {
		return err
	}
	if previous != nil && was != (len(refs) > 0) {
		return schemaRefusal(c.t.Sources[0], "properties.eventSchema", "schema mode is chosen when the Eventstream is created and cannot be set or unset afterwards; create a new Eventstream")
	}
	if len(refs) == 0 {
		return nil
	}
	if err := c.schemaNodes(refs, p); err != nil {
		return err
	}
	sr, ok := r.(SchemaResolver)
	if !ok {
		return schemaRefusal(c.t.Sources[0], "properties.eventSchema", "this build resolves no Event Schema Sets")
	}
	for _, n := range c.t.Sources {
		text, err := sr.EventSchema(ctx, ws, *refs[n])
		if err != nil {
			return BadNode(n, "properties.eventSchema", "%v", err)
		}
		if !slices.Contains(p.Schemas, text) {
			p.Schemas = append(p.Schemas, text)
		}
	}
	for i := range p.Destinations {
		p.Destinations[i].Serialization = &Serialization{Type: SerializationAvro}
	}
	return nil
}

// schemaRefs are the sources' schema refs (empty when none has one).
func (c compiler) schemaRefs() (map[*Node]*SchemaRef, error) {
	refs := map[*Node]*SchemaRef{}
	for _, n := range c.t.Sources {
		ref, err := schemaRefOf(n)
		if err != nil {
			return nil, err
		}
		if ref != nil {
			refs[n] = ref
		}
	}
	return refs, nil
}

// hadSchemaMode reports whether a stored topology was in schema mode.
func hadSchemaMode(t *Topology) (bool, error) {
	if t == nil {
		return false, nil
	}
	refs, err := compiler{t: t}.schemaRefs()
	return len(refs) > 0, err
}

// schemaNodes refuses the nodes schema mode does not take.
func (c compiler) schemaNodes(refs map[*Node]*SchemaRef, p *Plan) error {
	for _, n := range c.t.Sources {
		if refs[n] == nil {
			return schemaRefusal(n, "properties.eventSchema", "schema-enabled sources and sources without a schema cannot be combined in one Eventstream")
		}
		if !slices.ContainsFunc(schemaSourceTypes, n.Is) {
			return schemaRefusal(n, "type", "only "+strings.Join(schemaSourceTypes, " and ")+" sources take a registered schema here (and Azure SQL CDC in Fabric)")
		}
	}
	for _, d := range p.Destinations {
		if d.Target.Type != "Eventhouse" || d.Target.IngestionMode == DirectIngestion {
			return schemaRefusal(d.Node, "type", "schema-validated events go only to an Eventhouse in push mode (ProcessedIngestion), a custom endpoint or a DerivedStream")
		}
	}
	return nil
}

// schemaRefusal refuses node n in schema mode.
func schemaRefusal(n *Node, field, why string) error {
	return &Refusal{Kind: SchemaModeNotSupported, Field: "eventstream.json " + n.Path + "." + field,
		Message: fmt.Sprintf("%s %q (%s) in schema mode: %s (https://learn.microsoft.com/fabric/real-time-intelligence/schema-sets/schema-registry-limitations)", n.Kind, n.Name, n.Type, why)}
}
