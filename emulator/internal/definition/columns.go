package definition

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// aggregation maps one of Fabric's aggregations at (either spelling of the
// function) to a pipeline aggregate {fn, field?, as?}; it returns the
// source object too, for the fields only some operators have.
func aggregation(n *Node, at string, x any, want string) (map[string]any, map[string]any, error) {
	am, ok := x.(map[string]any)
	if !ok {
		return nil, nil, BadNode(n, at, "want %s", want)
	}
	a := map[string]any{"fn": cmp.Or(str(am, "aggregationFunction"), str(am, "aggregateFunction"))}
	if col, ok := am["column"]; ok && col != nil {
		f, err := columnName(n, at+".column", col)
		if err != nil {
			return nil, nil, err
		}
		a["field"] = f
	}
	if alias := str(am, "alias"); alias != "" {
		a["as"] = alias
	}
	return a, am, nil
}

// columnNames maps a list of column references at (groupBy, partitionBy).
func columnNames(n *Node, at string, cols []any) ([]any, error) {
	var out []any
	for i, c := range cols {
		k, err := columnName(n, fmt.Sprintf("%s[%d]", at, i), c)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// columnName reads a column reference: {columnName, columnPathSegments?:
// [string | {field}], columnPath?} (or a bare string), dotted.
func columnName(n *Node, at string, v any) (string, error) {
	if s, ok := v.(string); ok && s != "" {
		return s, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return "", BadNode(n, at, "want a column reference {columnName}")
	}
	name := str(m, "columnName")
	if name == "" {
		return "", BadNode(n, at+".columnName", "required")
	}
	parts := []string{name}
	for _, key := range []string{"columnPathSegments", "columnPath"} {
		switch segs := m[key].(type) {
		case string:
			if segs != "" {
				parts = append(parts, segs)
			}
		case []any:
			for _, s := range segs {
				switch x := s.(type) {
				case string:
					parts = append(parts, x)
				case map[string]any:
					if f := str(x, "field"); f != "" {
						parts = append(parts, f)
					}
				}
			}
		}
	}
	return strings.Join(parts, "."), nil
}

// literal reads {dataType, value} into the JSON value the pipeline compares.
func literal(n *Node, at string, v any) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil // a bare JSON value
	}
	if _, isCol := m["columnName"]; isCol {
		return nil, BadNode(n, at, "comparing with another column is not built; compare with a literal {dataType, value}")
	}
	raw := m["value"]
	s, isStr := raw.(string)
	switch strings.ToLower(str(m, "dataType")) {
	case "bigint", "float":
		if isStr {
			if _, err := strconv.ParseFloat(s, 64); err != nil {
				return nil, BadNode(n, at+".value", "%q is not a number (dataType %s)", s, str(m, "dataType"))
			}
			return json.Number(s), nil
		}
	case "bit":
		if isStr {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return nil, BadNode(n, at+".value", "%q is not a boolean (dataType Bit)", s)
			}
			return b, nil
		}
	}
	return raw, nil
}
