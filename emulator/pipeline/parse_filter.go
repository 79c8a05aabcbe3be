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
	if c, ok, err := parseCombinator(m, path, depth); ok || err != nil {
		return c, err
	}
	return parseComparison(obj{m: m, path: path}, depth)
}

// parseCombinator reads an "and", "or" or "not" condition; ok is false
// when m is none of them.
func parseCombinator(m map[string]any, path string, depth int) (c Condition, ok bool, err error) {
	for _, combinator := range []string{"and", "or"} {
		raw, ok := m[combinator]
		if !ok {
			continue
		}
		if len(m) != 1 {
			return Condition{}, true, invalid(path, "%q must be the condition's only member", combinator)
		}
		list, ok := raw.([]any)
		if !ok || len(list) == 0 {
			return Condition{}, true, invalid(join(path, combinator), "want a non-empty array of conditions")
		}
		subs := make([]Condition, len(list))
		for i, item := range list {
			c, err := parseCondition(item, index(join(path, combinator), i), depth+1)
			if err != nil {
				return Condition{}, true, err
			}
			subs[i] = c
		}
		if combinator == "and" {
			return Condition{And: subs}, true, nil
		}
		return Condition{Or: subs}, true, nil
	}
	raw, ok := m["not"]
	if !ok {
		return Condition{}, false, nil
	}
	if len(m) != 1 {
		return Condition{}, true, invalid(path, "\"not\" must be the condition's only member")
	}
	sub, err := parseCondition(raw, join(path, "not"), depth+1)
	if err != nil {
		return Condition{}, true, err
	}
	return Condition{Not: &sub}, true, nil
}

// parseComparison reads a {"field", "op", "value"} condition.
func parseComparison(o obj, depth int) (Condition, error) {
	path := o.path
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
	c := Condition{Field: field, Value: o.m["value"]}
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
