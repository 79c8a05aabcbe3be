package pipeline

import "strings"

// opAliases maps accepted op spellings (lower case) to a comparison, and
// for Fabric's negated forms to the comparison they negate.
var opAliases = map[string]struct {
	op     Op
	negate bool
}{
	"eq": {OpEq, false}, "=": {OpEq, false}, "==": {OpEq, false}, "equals": {OpEq, false},
	"ne": {OpNe, false}, "!=": {OpNe, false}, "<>": {OpNe, false}, "notequals": {OpNe, false},
	"gt": {OpGt, false}, ">": {OpGt, false}, "greaterthan": {OpGt, false},
	"gte": {OpGte, false}, ">=": {OpGte, false}, "greaterthanorequals": {OpGte, false},
	"lt": {OpLt, false}, "<": {OpLt, false}, "lessthan": {OpLt, false},
	"lte": {OpLte, false}, "<=": {OpLte, false}, "lessthanorequals": {OpLte, false},
	"contains": {OpContains, false}, "doesnotcontain": {OpContains, true},
	"startswith": {OpStartsWith, false}, "doesnotstartwith": {OpStartsWith, true},
	"endswith": {OpEndsWith, false}, "doesnotendwith": {OpEndsWith, true},
	"exists": {OpExists, false},
}

func parseCondition(v any, path string, depth int) (Condition, error) {
	if depth > maxDepth {
		return Condition{}, invalid(path, "conditions nest deeper than %d", maxDepth)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return Condition{}, invalid(path, "want a condition object")
	}
	o := obj{m: m, path: path}
	for _, combinator := range []string{"and", "or"} {
		raw, ok := m[combinator]
		if !ok {
			continue
		}
		if len(m) != 1 {
			return Condition{}, invalid(path, "%q must be the condition's only member", combinator)
		}
		list, ok := raw.([]any)
		if !ok || len(list) == 0 {
			return Condition{}, invalid(join(path, combinator), "want a non-empty array of conditions")
		}
		subs := make([]Condition, len(list))
		for i, item := range list {
			c, err := parseCondition(item, index(join(path, combinator), i), depth+1)
			if err != nil {
				return Condition{}, err
			}
			subs[i] = c
		}
		if combinator == "and" {
			return Condition{And: subs}, nil
		}
		return Condition{Or: subs}, nil
	}
	if raw, ok := m["not"]; ok {
		if len(m) != 1 {
			return Condition{}, invalid(path, "\"not\" must be the condition's only member")
		}
		c, err := parseCondition(raw, join(path, "not"), depth+1)
		if err != nil {
			return Condition{}, err
		}
		return Condition{Not: &c}, nil
	}
	if err := o.only("field", "op", "value"); err != nil {
		return Condition{}, err
	}
	field, err := o.str("field", true)
	if err != nil {
		return Condition{}, err
	}
	opName, err := o.str("op", true)
	if err != nil {
		return Condition{}, err
	}
	value := m["value"]
	c := Condition{Field: field, Value: value}
	lower := strings.ToLower(opName)
	switch lower {
	case "isnull":
		c.Op, c.Value = OpExists, false
	case "isnotnull":
		c.Op, c.Value = OpExists, nil
	case "isempty":
		c.Op, c.Value = OpEq, ""
	case "isnotnullorempty":
		return Condition{And: []Condition{{Field: field, Op: OpExists}, {Field: field, Op: OpNe, Value: ""}}}, nil
	default:
		alias, ok := opAliases[lower]
		if !ok {
			return Condition{}, invalid(join(path, "op"), "%q is not one of eq, ne, gt, gte, lt, lte, contains, startsWith, endsWith, exists", opName)
		}
		c.Op = alias.op
		if err := c.validate(path, depth); err != nil {
			return Condition{}, err
		}
		if alias.negate {
			return Condition{Not: &c}, nil
		}
		return c, nil
	}
	return c, nil
}
