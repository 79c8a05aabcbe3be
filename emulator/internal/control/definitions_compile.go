package control

import (
	"cmp"
	"context"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// resolver answers the compiler's lookups for caller who on Eventstream es.
type resolver struct {
	p   *Plane
	who Caller
	es  store.Item
}

// Source checks a source of a type the emulator runs (sources_plan.go).
func (r resolver) Source(ctx context.Context, ws string, n *definition.Node) (bool, error) {
	return r.p.planSource(ctx, ws, n)
}

// Destination checks a binding as Bind does.
func (r resolver) Destination(ctx context.Context, b definition.Binding, field func(string) string) (definition.Target, error) {
	req := BindRequest{Type: b.Type, ItemID: b.ItemID, Table: b.Table, Database: b.Database, WorkspaceID: b.WorkspaceID}
	req.IngestionMode = b.IngestionMode
	req.ErrorPolicy, req.DeadLetterTopic, req.SchemaMode = b.Policy.ErrorPolicy, b.Policy.DeadLetterTopic, b.Policy.SchemaMode
	req.batching = b.Batching
	d, err := r.p.checkBinding(ctx, r.who, r.es, req, field)
	if err != nil {
		return definition.Target{}, err
	}
	spec, err := eventstream.SpecOf(d)
	if err != nil {
		return definition.Target{}, err
	}
	target := definition.Target{Type: d.Type, WorkspaceID: d.WorkspaceID, ItemID: d.ItemID, Table: d.Target, Database: spec.Database,
		Policy: policyOf(spec)}
	target.IngestionMode = spec.IngestionMode
	batchingTarget(&target, spec)
	return target, nil
}

// EventSchema finds the Avro schema ref names in an Event Schema Set of
// workspace ws (ref's own when it names one) the caller can read.
func (r resolver) EventSchema(ctx context.Context, ws string, ref definition.SchemaRef) (string, error) {
	return r.p.eventSchema(ctx, r.who, cmp.Or(ref.WorkspaceID, ws), ref)
}

// planDefinition checks def for Eventstream es (not yet stored on create:
// no streams) and assigns the ids, changing nothing.
func (p *Plane) planDefinition(ctx context.Context, who Caller, es store.Item, def definition.Parts) (*definition.Plan, error) {
	props, err := eventstream.Decode(es)
	if err != nil {
		return nil, err
	}
	in := definition.Input{Parts: def, WorkspaceID: es.WorkspaceID, StreamName: es.DisplayName + "-stream", Previous: props.Definition}
	if len(props.Streams) > 0 {
		in.StreamID, in.StreamName = props.Streams[0].ID, props.Streams[0].Name
	}
	return definition.Compile(ctx, in, resolver{p: p, who: who, es: es})
}

// destinationOf is the destination planned d becomes on Eventstream esID
// (no id yet), with its node name and, when the plan's destinations read
// through different chains, its own.
func destinationOf(esID string, p *definition.Plan, d definition.Destination) store.Destination {
	s := eventstream.Spec{Database: d.Target.Database, Name: d.Node.Name}
	s.Batching = batchingSpec(d.Target)
	s.Serialization, s.Schemas = d.Serialization, p.Schemas
	if p.OwnOperators {
		s.OwnOperators, s.Operators = true, d.Operators
	}
	if d.Target.IngestionMode == definition.DirectIngestion {
		// The runtime applies no Eventstream operators to a DirectIngestion
		// destination; one that reads a DerivedStream keeps the chain that
		// fills that stream.
		s.IngestionMode, s.OwnOperators, s.Operators = d.Target.IngestionMode, true, d.Operators
		if !p.OwnOperators {
			s.Operators = p.Operators
		}
	}
	s.ErrorPolicy, s.DeadLetterTopic, s.SchemaMode = d.Target.Policy.ErrorPolicy, d.Target.Policy.DeadLetterTopic, d.Target.Policy.SchemaMode
	spec := s.Encode()
	return store.Destination{EventstreamID: esID, Type: d.Target.Type, WorkspaceID: d.Target.WorkspaceID, ItemID: d.Target.ItemID, Target: d.Target.Table, Spec: spec}
}
