package definition

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/asaql"
)

// sqlSpecs maps SQL node n, {query, advancedSettings?}, onto the pipeline
// specs its query compiles into (see package asaql for the subset). FROM
// must name the node's input and INTO, when given, a node that reads n.
// advancedSettings (out-of-order and late-arrival policies) are accepted
// and not applied: the pipeline's windows have their own lateness rules.
func sqlSpecs(t *Topology, n *Node) ([]map[string]any, error) {
	n.Raw["type"] = "SQL"
	q := str(n.Props, "query")
	if strings.TrimSpace(q) == "" {
		return nil, BadNode(n, "properties.query", "required: a Stream Analytics query such as SELECT * INTO [out] FROM [in]")
	}
	plan, err := asaql.Compile(q, n.Name)
	var e *asaql.Error
	switch {
	case errors.As(err, &e) && e.Unsupported():
		return nil, &Refusal{Kind: NotSupported, Field: n.Path + ".properties.query",
			Message: fmt.Sprintf("%s %q (%s): %v", n.Kind, n.Name, n.Path, err)}
	case err != nil:
		return nil, BadNode(n, "properties.query", "%v", err)
	}
	if len(n.Inputs) == 1 && !strings.EqualFold(plan.From, n.Inputs[0]) {
		return nil, BadNode(n, "properties.query", "FROM [%s] is not the node's input %q", plan.From, n.Inputs[0])
	}
	if plan.Into != "" && !readsFrom(t, plan.Into, n.Name) {
		return nil, BadNode(n, "properties.query", "INTO [%s] is not a node that reads %q", plan.Into, n.Name)
	}
	return plan.Specs, nil
}

// readsFrom reports whether the node called name (case-insensitive) has
// input in.
func readsFrom(t *Topology, name, in string) bool {
	for nm, node := range t.ByName {
		if !strings.EqualFold(nm, name) {
			continue
		}
		for _, x := range node.Inputs {
			if x == in {
				return true
			}
		}
	}
	return false
}
