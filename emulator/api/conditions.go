package api

import (
	"encoding/json"

	"github.com/fabrictest/fabrictest/emulator/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// condition reports whether a row passes a trigger's condition.
type condition func(rows.Row) bool

// parseCondition parses a trigger condition in the Filter grammar; nil
// raw (or JSON null) means "every event".
func parseCondition(raw json.RawMessage) (condition, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	return nil, fabricerr.BadParameter("condition", "conditions arrive with the Filter operator; not available in this build yet")
}
