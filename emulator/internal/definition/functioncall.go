package definition

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// functionCall maps a ManageFields column of type FunctionCall,
// {properties: {functionName, arguments: [Literal {dataType, value} |
// ColumnReference {columnName, columnPathSegments}]}, alias}, onto a
// pipeline compute {fn, args: [{literal} | {field}], as}. The function name
// and the argument types are checked by the pipeline (see
// pipeline.ScalarFunc); at is the column's path in the node.
func functionCall(n *Node, at string, cm, cp map[string]any) (map[string]any, error) {
	fn := str(cp, "functionName")
	if fn == "" {
		return nil, BadNode(n, at+".properties.functionName", "required")
	}
	alias := str(cm, "alias")
	if alias == "" {
		return nil, BadNode(n, at+".alias", "required: the name of the column %s computes", fn)
	}
	list, ok := cp["arguments"].([]any)
	if !ok {
		return nil, BadNode(n, at+".properties.arguments", "want an array of Literal or ColumnReference expressions")
	}
	args := []any{}
	for j, x := range list {
		aat := fmt.Sprintf("%s.properties.arguments[%d]", at, j)
		am, ok := x.(map[string]any)
		if !ok {
			return nil, BadNode(n, aat, "want {expressionType: Literal | ColumnReference, ...}")
		}
		switch et := str(am, "expressionType"); strings.ToLower(et) {
		case "columnreference":
			f, err := columnName(n, aat, am)
			if err != nil {
				return nil, err
			}
			args = append(args, map[string]any{"field": f})
		case "literal":
			v, err := literal(n, aat, am)
			if err != nil {
				return nil, err
			}
			if s, isStr := am["value"].(string); isStr && strings.EqualFold(str(am, "dataType"), "BigInt") {
				if _, err := strconv.ParseInt(s, 10, 64); err != nil {
					return nil, BadNode(n, aat+".value", "%q is not an integer (dataType BigInt)", s)
				}
			}
			args = append(args, map[string]any{"literal": v})
		default:
			return nil, BadNode(n, aat+".expressionType", "%q is not Literal or ColumnReference (nested expressions are not built)", et)
		}
	}
	return map[string]any{"fn": fn, "args": args, "as": alias}, nil
}

// keepComputed checks that computed columns (compute[i] from the column at
// ats[i]) do not collide with the other output columns and returns keep
// with their aliases added, so that only the columns listed come out:
// Fabric's ManageFields is a projection.
func keepComputed(n *Node, keep []any, rename map[string]any, compute []map[string]any, ats []string) ([]any, error) {
	targets := map[string]string{}
	for from, to := range rename {
		if s, ok := to.(string); ok {
			targets[s] = from
		}
	}
	out := slices.Clone(keep)
	seen := map[string]bool{}
	for i, c := range compute {
		as, _ := c["as"].(string)
		_, renamed := rename[as]
		switch {
		case slices.Contains(keep, any(as)) && !renamed:
			return nil, BadNode(n, ats[i]+".alias", "column %q is also output by another column; the emulator outputs a column once", as)
		case targets[as] != "":
			return nil, BadNode(n, ats[i]+".alias", "column %q is also the alias of column %q; the emulator outputs a column once", as, targets[as])
		case seen[as]:
			return nil, BadNode(n, ats[i]+".alias", "column %q is computed twice; the emulator outputs a column once", as)
		}
		seen[as] = true
		if !slices.Contains(out, any(as)) {
			out = append(out, as)
		}
	}
	return out, nil
}
