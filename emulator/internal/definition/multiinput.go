package definition

import (
	"fmt"
	"slices"
	"strings"
)

// multiInput reports whether operator n reads several inputs: Union and
// Join.
func multiInput(n *Node) bool {
	typ := strings.ToLower(n.Type)
	return n.Kind == "operator" && (typ == "union" || typ == "join")
}

// checkInputCount checks the number of inputs of operator n: two or more
// for a Union, two for a Join, one for the others.
func checkInputCount(n *Node) error {
	switch strings.ToLower(n.Type) {
	case "union":
		if len(n.Inputs) < 2 {
			return BadNode(n, "inputNodes", "a Union reads two or more streams or operators")
		}
	case "join":
		if len(n.Inputs) != 2 {
			return BadNode(n, "inputNodes", "a Join reads two streams or operators: the left one, then the right one")
		}
	default:
		if len(n.Inputs) != 1 {
			return BadNode(n, "inputNodes", "an operator reads exactly one stream or operator")
		}
	}
	return nil
}

// orderedInputs returns n's inputs in the order its operator takes them: a
// Join's left input is the one its first joinOn's left column names (by
// node), else its first inputNode.
func orderedInputs(n *Node) []string {
	ins := slices.Clone(n.Inputs)
	if !strings.EqualFold(n.Type, "join") || len(ins) != 2 {
		return ins
	}
	on, _ := n.Props["joinOn"].([]any)
	if len(on) == 0 {
		return ins
	}
	first, _ := on[0].(map[string]any)
	left, _ := first["left"].(map[string]any)
	if node, _ := left["node"].(string); node == ins[1] {
		slices.Reverse(ins)
	}
	return ins
}

// checkAlone checks specs, the mapping of operator n, on their own: a
// Union or Join (one spec) with empty input chains.
func checkAlone(n *Node, specs []map[string]any) error {
	if multiInput(n) && len(specs) == 1 {
		specs = []map[string]any{cloneWithInputs(specs[0], len(n.Inputs))}
	}
	if _, err := parseChain(specs); err != nil {
		return opError(n, err)
	}
	return nil
}

func cloneWithInputs(spec map[string]any, n int) map[string]any {
	out := make(map[string]any, len(spec)+1)
	for k, v := range spec {
		out[k] = v
	}
	inputs := make([]any, n)
	for i := range inputs {
		inputs[i] = []any{}
	}
	out["inputs"] = inputs
	return out
}

// unionSpec maps Union {} onto a pipeline Union; its inputs are filled in
// when the chains are built.
func unionSpec(n *Node) (map[string]any, error) {
	return map[string]any{"type": "Union", "name": n.Name}, nil
}

// joinSpec maps Join {joinType, joinOn: [{left, right}], duration} onto a
// pipeline Join; its inputs are filled in when the chains are built.
func joinSpec(n *Node) (map[string]any, error) {
	spec := map[string]any{"type": "Join", "name": n.Name, "joinType": n.Str("joinType")}
	if n.Str("joinType") == "" {
		return nil, BadNode(n, "properties.joinType", "required: Inner or LeftOuter")
	}
	if d, ok := n.Props["duration"]; ok && d != nil {
		spec["duration"] = d
	} else {
		return nil, BadNode(n, "properties.duration", "required: {value, unit}")
	}
	raw, _ := n.Props["joinOn"].([]any)
	var on []any
	for i, x := range raw {
		at := fmt.Sprintf("properties.joinOn[%d]", i)
		m, ok := x.(map[string]any)
		if !ok {
			return nil, BadNode(n, at, "want {left, right} column references")
		}
		l, err := columnName(n, at+".left", m["left"])
		if err != nil {
			return nil, err
		}
		r, err := columnName(n, at+".right", m["right"])
		if err != nil {
			return nil, err
		}
		on = append(on, map[string]any{"left": l, "right": r})
	}
	if len(on) > 0 {
		spec["joinOn"] = on
	}
	return spec, nil
}
