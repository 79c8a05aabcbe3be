package definition

// expandSpec maps Expand {column: [col] (or one col), ignoreMissingOrEmpty?}
// onto a pipeline Expand; an absent ignoreMissingOrEmpty is the pipeline's
// default (true).
func expandSpec(n *Node) (map[string]any, error) {
	raw := n.Props["column"]
	cols, isList := raw.([]any)
	if !isList && raw != nil {
		cols = []any{raw}
	}
	if len(cols) == 0 {
		return nil, BadNode(n, "properties.column", "want a column reference or a non-empty array of them")
	}
	fields, err := columnNames(n, "properties.column", cols)
	if err != nil {
		return nil, err
	}
	spec := map[string]any{"type": "Expand", "name": n.Name, "fields": fields}
	if v, ok := n.Props["ignoreMissingOrEmpty"]; ok && v != nil {
		b, ok := v.(bool)
		if !ok {
			return nil, BadNode(n, "properties.ignoreMissingOrEmpty", "want true or false")
		}
		spec["ignoreMissingOrEmpty"] = b
	}
	return spec, nil
}
