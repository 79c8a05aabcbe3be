package definition

import (
	"encoding/json"
	"slices"

	"github.com/fabrictest/fabrictest/emulator/pipeline"
)

// chainOf walks n's input back to the DefaultStream def0 and returns the
// operators on the way, first first. Cycles, dangling inputs and inputs
// from sources or destinations are refused.
func chainOf(t *Topology, def0, n *Node) ([]*Node, error) {
	var chain []*Node
	cur := n
	for steps := 0; ; steps++ {
		if steps > len(t.ByName)+1 {
			return nil, BadNode(n, "inputNodes", "its inputs form a cycle")
		}
		if len(cur.Inputs) != 1 {
			return nil, BadNode(cur, "inputNodes", "want exactly one input")
		}
		in := t.ByName[cur.Inputs[0]]
		switch {
		case in == nil:
			return nil, BadNode(cur, "inputNodes", "%q is not a node of this definition", cur.Inputs[0])
		case in == def0:
			slices.Reverse(chain)
			return chain, nil
		case in.Kind == "source":
			return nil, BadNode(cur, "inputNodes", "%q is a source; sources feed the DefaultStream %q", in.Name, def0.Name)
		case in.Kind == "destination":
			return nil, BadNode(cur, "inputNodes", "%q is a destination", in.Name)
		case in.Kind == "operator":
			chain = append(chain, in)
		}
		cur = in
	}
}

// formatChain compiles the operator nodes of chain (specs by name) into
// the pipeline's stored form for node n; empty without operators.
func formatChain(n *Node, chain []*Node, specs map[string][]map[string]any) (json.RawMessage, error) {
	var ops []map[string]any
	for _, op := range chain {
		ops = append(ops, specs[op.Name]...)
	}
	parsed, err := parseChain(ops)
	if err != nil {
		return nil, opError(n, err)
	}
	if len(parsed) == 0 {
		return nil, nil
	}
	return pipeline.Format(parsed)
}

// parseChain parses pipeline specs; nil without any.
func parseChain(specs []map[string]any) ([]pipeline.Operator, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	b, _ := json.Marshal(specs)
	return pipeline.Parse(b)
}
