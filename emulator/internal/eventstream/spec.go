package eventstream

import (
	"encoding/json"
	"fmt"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Spec is what a destination binding stores beside its table: an
// Eventhouse's database; for a destination deployed by a definition, its
// node name and, when the definition's destinations read through different
// operators, its own operator chain (OwnOperators: Operators replaces the
// Eventstream's chain, even when empty).
type Spec struct {
	Database     string          `json:"database,omitempty"`
	Name         string          `json:"name,omitempty"`
	OwnOperators bool            `json:"ownOperators,omitempty"`
	Operators    json.RawMessage `json:"operators,omitempty"`
}

// SpecOf decodes d's spec (the zero Spec when it has none).
func SpecOf(d store.Destination) (Spec, error) {
	var s Spec
	if len(d.Spec) == 0 {
		return s, nil
	}
	if err := json.Unmarshal(d.Spec, &s); err != nil {
		return s, fmt.Errorf("decode destination %s: %w", d.ID, err)
	}
	return s, nil
}

// Encode is s as stored.
func (s Spec) Encode() json.RawMessage {
	b, _ := json.Marshal(s) // a struct of strings, a bool and raw JSON always marshals
	return b
}
