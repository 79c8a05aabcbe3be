package control

import (
	"context"
	"encoding/json"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
)

// EventstreamHasDefinition answers the native operator routes on an
// Eventstream whose definition holds its operators.
const EventstreamHasDefinition = "EventstreamHasDefinition"

// Operators is the operator chain of Eventstream ref, as stored
// (pipeline.Format's JSON; "[]" for none).
func (p *Plane) Operators(ctx context.Context, who Caller, ref ItemRef) (json.RawMessage, error) {
	es, err := p.eventstream(ctx, who, ref, store.RoleViewer)
	if err != nil {
		return nil, err
	}
	props, err := eventstream.Decode(es)
	if err != nil {
		return nil, err
	}
	return orEmpty(props.Operators), nil
}

// SetOperators replaces the operator chain of Eventstream ref with ops
// (none: no operators) and returns it as stored. Destinations restart on
// the new chain; open windows of the old one are dropped. An Eventstream
// deployed from a definition refuses: its definition holds the operators.
func (p *Plane) SetOperators(ctx context.Context, who Caller, ref ItemRef, ops []pipeline.Operator) (json.RawMessage, error) {
	es, err := p.eventstream(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return nil, err
	}
	// A deployed definition owns the operators: changing them here would
	// leave getDefinition and the topology describing another pipeline.
	props, err := eventstream.Decode(es)
	if err != nil {
		return nil, err
	}
	if props.Definition != nil {
		return nil, fabricerr.Conflict(EventstreamHasDefinition,
			"Eventstream %s was deployed from a definition, which holds its operators; change them with POST …/updateDefinition", es.ID)
	}
	var formatted json.RawMessage
	if len(ops) > 0 {
		if formatted, err = pipeline.Format(ops); err != nil {
			return nil, err
		}
	}
	props.Operators = formatted
	if err := eventstream.Save(ctx, p.cfg.Store, &es, props); err != nil {
		return nil, err
	}
	if err := p.sync(ctx, es.ID); err != nil { // the drains restart with the new chain
		return nil, err
	}
	return orEmpty(formatted), nil
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("[]")
	}
	return raw
}
