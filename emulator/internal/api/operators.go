package api

import (
	"encoding/json"
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
)

// operatorError maps the pipeline's typed errors to Fabric envelopes.
func operatorError(err error) error { return runtime.OperatorError(err) }

// setOperators serves POST …/eventstreams/{id}/operators: the body (a list,
// {"operators": [...]}, or one operator) replaces the chain. Nothing changes
// unless every operator is valid.
func (a operatorHandlers) setOperators(c *call) error {
	if _, err := a.item(c, TypeEventstream, store.RoleContributor); err != nil {
		return err // before the body is read, as every route checks the caller first
	}
	body, err := a.readBody(c)
	if err != nil {
		return err
	}
	var probe any
	if err := json.Unmarshal(body, &probe); err != nil {
		return fabricerr.JSON("", err)
	}
	ops, err := pipeline.Parse(body)
	if err != nil {
		return operatorError(err)
	}
	return a.answerOperators(c, ops)
}

// answerOperators sets the chain to ops and answers it.
func (a operatorHandlers) answerOperators(c *call, ops []pipeline.Operator) error {
	out, err := a.plane.SetOperators(c.r.Context(), c.caller(), esRef(c), ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"operators": out})
}

func (a operatorHandlers) getOperators(c *call) error {
	ops, err := a.plane.Operators(c.r.Context(), c.caller(), esRef(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"operators": ops})
}

func (a operatorHandlers) deleteOperators(c *call) error { return a.answerOperators(c, nil) }
