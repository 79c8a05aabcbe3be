package runtime

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// Condition reports whether a row passes a trigger's condition.
type Condition func(rows.Row) bool

// ParseCondition parses a trigger condition in the Filter operator's
// grammar; nil raw (or JSON null) means "every event".
func ParseCondition(raw json.RawMessage) (Condition, error) {
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
	return nil, OperatorError(err)
}

// trimOperatorPrefix turns "operators[0].condition.x" into ".x".
func trimOperatorPrefix(field string) string {
	const p = "operators[0].condition"
	if len(field) >= len(p) && field[:len(p)] == p {
		return field[len(p):]
	}
	return ""
}

// OperatorError maps the pipeline's typed errors to Fabric envelopes.
func OperatorError(err error) error {
	var nse *pipeline.NotSupportedError
	var ve *pipeline.ValidationError
	switch {
	case errors.As(err, &nse):
		return fabricerr.New(http.StatusBadRequest, "EventstreamOperatorNotSupported", "%v", err).
			WithDetails(fabricerr.Detail{ErrorCode: "EventstreamOperatorNotSupported", Message: nse.Field})
	case errors.As(err, &ve):
		return fabricerr.BadParameter(ve.Field, "%s", ve.Message)
	}
	return fabricerr.New(http.StatusBadRequest, fabricerr.InvalidInput, "operators: %v", err)
}
