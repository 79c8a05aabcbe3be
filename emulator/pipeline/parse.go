package pipeline

import (
	"strings"
)

// Parse reads operators from JSON and checks them. It accepts an array of
// operator objects, {"operators": [...]}, or a single operator object; field
// names in errors are "operators[i]…" for the first two and start at the
// operator's own members for the third. Errors are *ValidationError (a
// malformed operator) or *NotSupportedError (a Fabric operator, window,
// function or unit refused by name); a caller answers both with 400.
//
// Accepted shapes (see the package documentation for examples):
//
//	{"type": "Filter", "condition": COND}
//	    COND = {"field": F, "op": OP, "value": V} | {"and": [COND...]} |
//	           {"or": [COND...]} | {"not": COND}
//	{"type": "ManageFields", "keep": [F...], "drop": [F...],
//	    "rename": {F: NEW...}, "cast": {F: TYPE...},
//	    "compute": [{"fn": FUNC, "args": [{"field": F} | {"literal": V}...],
//	                 "as": NAME}...]}
//	{"type": "GroupBy", "keys": [F...],
//	    "aggregates": [{"fn": FN, "field": F, "as": NAME}...],
//	    "window": {"kind": "tumbling"|"hopping"|"sliding"|"session"|"snapshot",
//	               "duration": D, "hop": D, "offset": D, "on": F,
//	               "allowedLateness": D, "timeout": D, "maxDuration": D,
//	               "partitionBy": F}}
//	{"type": "Aggregate", "on": F, "allowedLateness": D,
//	    "aggregates": [{"fn": FN, "field": F, "as": NAME,
//	                    "partitionBy": [F...], "duration": D}...]}
//	{"type": "Expand", "fields": [F...] | "field": F, "ignoreMissingOrEmpty": B}
//	{"type": "Union", "inputs": [[OPERATOR...], [OPERATOR...]...]}
//	{"type": "Join", "joinType": "Inner"|"LeftOuter",
//	    "joinOn": [{"left": F, "right": F}...], "duration": D,
//	    "allowedLateness": D, "inputs": [[OPERATOR...], [OPERATOR...]]}
//	{"type": "Window", "kind": ..., "duration": D, "on": F}   (the seed's)
//
// The window members may also sit flat on the GroupBy (the seed's "kind",
// "duration", "on"). A seed Window directly followed by a GroupBy that has no
// window becomes that GroupBy's window, and "_window_start" (or
// "window_start", "window_end") among that GroupBy's keys is dropped since
// every output row carries it anyway. Type, op, fn, kind and cast type names
// are case-insensitive and also accepted under their Fabric spellings. A
// duration D is a Go duration string ("90s", "1m", "1h30m") or Fabric's
// {"value": 5, "unit": "Minute"}. Unknown members are errors.
func Parse(data []byte) ([]Operator, error) {
	var doc any
	if err := decodeJSON(data, &doc); err != nil {
		return nil, invalid("", "malformed JSON: %v", err)
	}
	items, single, err := operatorItems(doc)
	if err != nil {
		return nil, err
	}
	path := func(i int) string {
		if single {
			return ""
		}
		return index("operators", i)
	}
	var parsed []Operator
	for i, item := range items {
		op, err := parseOperator(item, path(i))
		if err != nil {
			return nil, err
		}
		parsed = append(parsed, op)
	}
	return fuseWindows(parsed, path)
}

// operatorItems finds the operator objects in a decoded document: the
// array itself, the array under "operators", or the single operator object
// (single true).
func operatorItems(doc any) (items []any, single bool, err error) {
	switch x := doc.(type) {
	case []any:
		return x, false, nil
	case map[string]any:
		if list, ok := x["operators"]; ok && len(x) == 1 {
			arr, ok := list.([]any)
			if !ok {
				return nil, false, invalid("operators", "want an array of operators")
			}
			return arr, false, nil
		}
		return []any{x}, true, nil
	}
	return nil, false, invalid("", "want an operator object or an array of operators")
}

// fuseWindows fuses a seed Window with the window-less GroupBy right after
// it and validates every operator; path(i) names parsed[i] in errors.
func fuseWindows(parsed []Operator, path func(int) string) ([]Operator, error) {
	var ops []Operator
	for i := 0; i < len(parsed); i++ {
		switch op := parsed[i].(type) {
		case WindowStamp:
			if i+1 < len(parsed) {
				if g, ok := parsed[i+1].(GroupBy); ok && g.Window == (Window{}) {
					g.Window = op.Window
					keys := []string{}
					for _, k := range g.Keys {
						if !reservedWindowField(k) {
							keys = append(keys, k)
						}
					}
					g.Keys = keys
					if err := g.validate(path(i + 1)); err != nil {
						return nil, err
					}
					ops = append(ops, g)
					i++
					continue
				}
			}
			if err := op.validate(path(i)); err != nil {
				return nil, err
			}
			ops = append(ops, op)
		case GroupBy:
			if op.Window == (Window{}) {
				return nil, invalid(join(path(i), "window"),
					"GroupBy needs a window ({kind: tumbling|hopping, duration, ...}) or a Window operator right before it; a GroupBy over the whole stream would never close")
			}
			if err := op.validate(path(i)); err != nil {
				return nil, err
			}
			ops = append(ops, op)
		default:
			if err := op.validate(path(i)); err != nil {
				return nil, err
			}
			ops = append(ops, op)
		}
	}
	return ops, nil
}

// Refusal reasons, by operator type and window kind.
var (
	refusedTypes = map[string]string{
		"sql": "the emulator does not interpret Stream Analytics SQL",
	}
)

func parseOperator(item any, path string) (Operator, error) {
	m, ok := item.(map[string]any)
	if !ok {
		return nil, invalid(path, "want an operator object")
	}
	o := obj{m: m, path: path}
	typ, err := o.str("type", true)
	if err != nil {
		return nil, err
	}
	name, err := o.str("name", false)
	if err != nil {
		return nil, err
	}
	lower := strings.ToLower(typ)
	if reason, refused := refusedTypes[lower]; refused {
		return nil, notSupported(join(path, "type"), canonicalType(lower, typ), reason)
	}
	windowKeys := windowMembers
	switch lower {
	case "filter":
		if err := o.only("condition"); err != nil {
			return nil, err
		}
		raw, ok := m["condition"]
		if !ok {
			return nil, invalid(join(path, "condition"), "required")
		}
		c, err := parseCondition(raw, join(path, "condition"), 0)
		if err != nil {
			return nil, err
		}
		return Filter{Name: name, Condition: c}, nil
	case "managefields":
		if err := o.only("keep", "drop", "rename", "cast", "compute"); err != nil {
			return nil, err
		}
		return parseManageFields(o, name)
	case "groupby":
		if err := o.only(append([]string{"keys", "aggregates", "window"}, windowKeys...)...); err != nil {
			return nil, err
		}
		return parseGroupBy(o, name)
	case "aggregate", "rollingaggregate":
		if err := o.only("aggregates", "on", "allowedLateness"); err != nil {
			return nil, err
		}
		return parseRolling(o, name)
	case "union":
		if err := o.only("inputs"); err != nil {
			return nil, err
		}
		return parseUnion(o, name)
	case "join":
		if err := o.only("joinType", "joinOn", "duration", "allowedLateness", "inputs"); err != nil {
			return nil, err
		}
		return parseJoin(o, name)
	case "expand":
		if err := o.only("fields", "field", "ignoreMissingOrEmpty"); err != nil {
			return nil, err
		}
		return parseExpand(o, name)
	case "window":
		if err := o.only(append([]string{"window"}, windowKeys...)...); err != nil {
			return nil, err
		}
		w, err := parseWindowAny(o)
		if err != nil {
			return nil, err
		}
		if w == (Window{}) {
			return nil, invalid(join(path, "kind"), "required: tumbling")
		}
		return WindowStamp{Name: name, Window: w}, nil
	}
	return nil, invalid(join(path, "type"), "%q is not one of Filter, ManageFields, GroupBy, Aggregate, Expand, Union, Join, Window", typ)
}

func canonicalType(lower, given string) string {
	switch lower {
	case "join":
		return "Join"
	case "union":
		return "Union"
	case "expand":
		return "Expand"
	case "sql":
		return "SQL"
	}
	return given
}
