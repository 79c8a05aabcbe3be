package api

import (
	"encoding/json"
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
)

// operatorError maps the pipeline's typed errors to Fabric envelopes.
func operatorError(err error) error { return runtime.OperatorError(err) }

// setOperators serves POST …/eventstreams/{id}/operators: the body (a list,
// {"operators": [...]}, or one operator) replaces the chain. Nothing changes
// unless every operator is valid. Destinations restart on the new chain;
// open windows of the old one are dropped.
func (a *API) setOperators(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleContributor)
	if err != nil {
		return err
	}
	body, err := a.readBody(c)
	if err != nil {
		return err
	}
	var probe any
	if err := json.Unmarshal(body, &probe); err != nil {
		return jsonError("", err)
	}
	ops, err := pipeline.Parse(body)
	if err != nil {
		return operatorError(err)
	}
	return a.replaceOperators(c, es, ops)
}

// EventstreamHasDefinition answers the native operator routes on an
// Eventstream whose definition holds its operators.
const EventstreamHasDefinition = "EventstreamHasDefinition"

func (a *API) replaceOperators(c *call, es store.Item, ops []pipeline.Operator) error {
	// A deployed definition owns the operators: changing them here would
	// leave getDefinition and the topology describing another pipeline.
	props, err := eventstream.Decode(es)
	if err != nil {
		return err
	}
	if props.Definition != nil {
		return fabricerr.New(http.StatusConflict, EventstreamHasDefinition,
			"Eventstream %s was deployed from a definition, which holds its operators; change them with POST …/updateDefinition", es.ID)
	}
	var formatted json.RawMessage
	if len(ops) > 0 {
		var err error
		if formatted, err = pipeline.Format(ops); err != nil {
			return err
		}
	}
	props.Operators = formatted
	if err := eventstream.Save(c.r.Context(), a.cfg.Store, &es, props); err != nil {
		return err
	}
	if err := a.rt.Sync(c.r.Context(), es.ID); err != nil { // the drains restart with the new chain
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"operators": orEmpty(formatted)})
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("[]")
	}
	return raw
}

func (a *API) getOperators(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleViewer)
	if err != nil {
		return err
	}
	props, err := eventstream.Decode(es)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"operators": orEmpty(props.Operators)})
}

func (a *API) deleteOperators(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleContributor)
	if err != nil {
		return err
	}
	return a.replaceOperators(c, es, nil)
}
