package definition

import (
	"cmp"
	"fmt"
	"strings"
)

// operatorMapping maps one of Fabric's operator node types onto a pipeline
// operator spec; Canonical is the type's spelling in the stored topology.
type operatorMapping struct {
	Canonical string
	Map       func(n *Node) (map[string]any, error)
}

// operatorMappings holds every operator node type, by lower-cased type.
var operatorMappings = map[string]operatorMapping{
	"filter":       {"Filter", filterSpec},
	"managefields": {"ManageFields", manageFieldsSpec},
	"aggregate":    {"Aggregate", aggregateSpec},
	"groupby":      {"GroupBy", groupBySpec},
	"expand":       {"Expand", expandSpec},
	"union":        {"Union", unionSpec},
	"join":         {"Join", joinSpec},
}

// operatorSpec maps operator node n onto a pipeline spec and canonicalises
// its type.
func operatorSpec(n *Node) (map[string]any, error) {
	typ := strings.ToLower(n.Type)
	m, ok := operatorMappings[typ]
	if !ok {
		return nil, BadNode(n, "type", "%q is not one of Filter, ManageFields, Aggregate, GroupBy, Join, Union, Expand, SQL", n.Type)
	}
	n.Raw["type"] = m.Canonical
	return m.Map(n)
}

// filterSpec maps Filter {conditions: [{column, operatorType, value}]}
// onto a pipeline Filter (the conditions and-ed).
func filterSpec(n *Node) (map[string]any, error) {
	conds, _ := n.Props["conditions"].([]any)
	if len(conds) == 0 {
		return nil, BadNode(n, "properties.conditions", "want a non-empty array of {column, operatorType, value}")
	}
	var out []any
	for i, x := range conds {
		c, err := filterCondition(n, fmt.Sprintf("properties.conditions[%d]", i), x)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	cond := out[0]
	if len(out) > 1 {
		cond = map[string]any{"and": out}
	}
	return map[string]any{"type": "Filter", "name": n.Name, "condition": cond}, nil
}

// filterCondition maps the condition at onto {field, op, value?}.
func filterCondition(n *Node, at string, x any) (map[string]any, error) {
	cm, ok := x.(map[string]any)
	if !ok {
		return nil, BadNode(n, at, "want {column, operatorType, value}")
	}
	field, err := columnName(n, at+".column", cm["column"])
	if err != nil {
		return nil, err
	}
	op := cmp.Or(str(cm, "operatorType"), str(cm, "operator"))
	if op == "" {
		return nil, BadNode(n, at+".operatorType", "required")
	}
	c := map[string]any{"field": field, "op": op}
	if v, ok := cm["value"]; ok && v != nil {
		val, err := literal(n, at+".value", v)
		if err != nil {
			return nil, err
		}
		c["value"] = val
	}
	return c, nil
}

// aggregateSpec maps rolling per-event aggregates, {aggregations:
// [{aggregationFunction (or aggregateFunction), column, alias?,
// partitionBy?: [column], duration}]}, onto pipeline.RollingAggregate on
// arrival time.
func aggregateSpec(n *Node) (map[string]any, error) {
	aggs, _ := n.Props["aggregations"].([]any)
	if len(aggs) == 0 {
		return nil, BadNode(n, "properties.aggregations", "want a non-empty array of {aggregationFunction, column, alias, partitionBy, duration}")
	}
	var out []any
	for i, x := range aggs {
		at := fmt.Sprintf("properties.aggregations[%d]", i)
		a, am, err := aggregation(n, at, x, "{aggregationFunction, column, alias, partitionBy, duration}")
		if err != nil {
			return nil, err
		}
		pb, _ := am["partitionBy"].([]any)
		keys, err := columnNames(n, at+".partitionBy", pb)
		if err != nil {
			return nil, err
		}
		if len(keys) > 0 {
			a["partitionBy"] = keys
		}
		if d, ok := am["duration"]; ok && d != nil {
			a["duration"] = d
		}
		out = append(out, a)
	}
	return map[string]any{"type": "Aggregate", "name": n.Name, "aggregates": out}, nil
}

// groupBySpec maps GroupBy {aggregations, groupBy: [column], window: {type,
// properties: {duration, hopSize?, offset?}}} onto a windowed pipeline
// GroupBy.
func groupBySpec(n *Node) (map[string]any, error) {
	aggs, _ := n.Props["aggregations"].([]any)
	var out []any
	for i, x := range aggs {
		a, _, err := aggregation(n, fmt.Sprintf("properties.aggregations[%d]", i), x, "{aggregationFunction, column, alias}")
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	gb, _ := n.Props["groupBy"].([]any)
	keys, err := columnNames(n, "properties.groupBy", gb)
	if err != nil {
		return nil, err
	}
	spec := map[string]any{"type": "GroupBy", "name": n.Name, "aggregates": out}
	if len(keys) > 0 {
		spec["keys"] = keys
	}
	win, err := groupByWindow(n)
	if err != nil {
		return nil, err
	}
	spec["window"] = win
	return spec, nil
}

// groupByWindow maps GroupBy's window {type, properties: {duration,
// hopSize?, offset?, timeout?, maxDuration?, partitionBy?}}.
func groupByWindow(n *Node) (map[string]any, error) {
	w, _ := n.Props["window"].(map[string]any)
	if w == nil {
		return nil, BadNode(n, "properties.window", "required: {type: Tumbling|Hopping|Sliding|Session|Snapshot, properties: {duration, hopSize?, offset?, timeout?, maxDuration?, partitionBy?}}")
	}
	wp, _ := w["properties"].(map[string]any)
	win := map[string]any{"kind": str(w, "type")}
	for from, to := range map[string]string{"duration": "duration", "hopSize": "hop", "offset": "offset", "timeout": "timeout", "maxDuration": "maxDuration"} {
		if v, ok := wp[from]; ok && v != nil {
			win[to] = v
		}
	}
	if v, ok := wp["partitionBy"]; ok && v != nil {
		col, err := columnName(n, "properties.window.properties.partitionBy", v)
		if err != nil {
			return nil, err
		}
		win["partitionBy"] = col
	}
	return win, nil
}
