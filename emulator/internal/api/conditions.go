package api

import (
	"encoding/json"
	"errors"

	"github.com/fabrictest/fabrictest/emulator/pipeline"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// condition reports whether a row passes a trigger's condition.
type condition func(rows.Row) bool

// parseCondition parses a trigger condition in the Filter operator's
// grammar; nil raw (or JSON null) means "every event".
func parseCondition(raw json.RawMessage) (condition, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	spec, _ := json.Marshal([]map[string]json.RawMessage{{"type": json.RawMessage(`"Filter"`), "condition": raw}})
	ops, err := pipeline.Parse(spec)
	if err == nil {
		var p *pipeline.Pipeline
		if p, err = pipeline.New(ops); err == nil {
			return func(r rows.Row) bool {
				return len(p.Process([]pipeline.Event{{Row: r, Offset: -1}})) > 0
			}, nil
		}
	}
	var ve *pipeline.ValidationError
	if errors.As(err, &ve) {
		ve.Field = "condition" + trimOperatorPrefix(ve.Field)
	}
	return nil, operatorError(err)
}

// trimOperatorPrefix turns "operators[0].condition.x" into ".x".
func trimOperatorPrefix(field string) string {
	const p = "operators[0].condition"
	if len(field) >= len(p) && field[:len(p)] == p {
		return field[len(p):]
	}
	return ""
}
