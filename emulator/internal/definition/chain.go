package definition

import (
	"encoding/json"
	"maps"

	"github.com/fabrictest/fabrictest/emulator/pipeline"
)

// maxExpansion bounds the operator specs one chain may expand to: a
// Union or Join repeats the chain before each of its inputs, so a graph of
// nested diamonds could otherwise grow exponentially.
const maxExpansion = 10000

// graph is a parsed topology, its DefaultStream and its operators' specs,
// walked from a node back to the DefaultStream.
type graph struct {
	t      *Topology
	def0   *Node
	specs  map[string][]map[string]any // a SQL node compiles to several
	origin *Node                       // the node whose chain is built, named in cycle errors
	budget int
}

// chainOf returns the pipeline specs that turn the DefaultStream def0 into
// what n reads, first first. The operator graph is a DAG rooted at the
// DefaultStream: every operator reads it through the nodes before it, so
// an operator with several inputs (Union, Join) becomes one spec holding
// the chain before each input. DerivedStreams on the way pass rows on.
// Cycles, dangling inputs and inputs from sources or destinations are
// refused.
func chainOf(t *Topology, def0, n *Node, specs map[string][]map[string]any) ([]map[string]any, error) {
	if len(n.Inputs) != 1 {
		return nil, BadNode(n, "inputNodes", "want exactly one input")
	}
	g := &graph{t: t, def0: def0, specs: specs, origin: n, budget: maxExpansion}
	return g.through(n, n.Inputs[0], 0)
}

// through returns the specs producing the output of the node named name,
// which reader reads.
func (g *graph) through(reader *Node, name string, depth int) ([]map[string]any, error) {
	if depth > len(g.t.ByName)+1 {
		return nil, BadNode(g.origin, "inputNodes", "its inputs form a cycle")
	}
	if g.budget--; g.budget < 0 {
		return nil, BadNode(g.origin, "inputNodes", "the operators before it expand to more than %d steps", maxExpansion)
	}
	in := g.t.ByName[name]
	switch {
	case in == nil:
		return nil, BadNode(reader, "inputNodes", "%q is not a node of this definition", name)
	case in == g.def0:
		return nil, nil
	case in.Kind == "source":
		return nil, BadNode(reader, "inputNodes", "%q is a source; sources feed the DefaultStream %q", in.Name, g.def0.Name)
	case in.Kind == "destination":
		return nil, BadNode(reader, "inputNodes", "%q is a destination", in.Name)
	case in.Kind == "stream" || !multiInput(in):
		if len(in.Inputs) != 1 {
			return nil, BadNode(in, "inputNodes", "want exactly one input")
		}
		before, err := g.through(in, in.Inputs[0], depth+1)
		if err != nil || in.Kind == "stream" {
			return before, err
		}
		return append(before, g.specs[in.Name]...), nil
	}
	var inputs []any
	for _, x := range orderedInputs(in) {
		c, err := g.through(in, x, depth+1)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, append([]map[string]any{}, c...))
	}
	spec := maps.Clone(g.specs[in.Name][0]) // a Union or Join is one spec
	spec["inputs"] = inputs
	return []map[string]any{spec}, nil
}

// formatChain compiles specs into the pipeline's stored form for node n;
// empty without operators.
func formatChain(n *Node, specs []map[string]any) (json.RawMessage, error) {
	parsed, err := parseChain(specs)
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
