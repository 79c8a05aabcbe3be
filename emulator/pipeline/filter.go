package pipeline

import (
	"strings"
)

// Op names a Filter comparison.
type Op string

// The Filter comparisons. The rules, for a row value v and the condition
// value c:
//
//   - Numbers compare with numbers, numerically and exactly: json.Number,
//     Go integers and floats alike (1, 1.0 and 1e0 are equal).
//   - Strings compare with strings, byte by byte (lexicographic, so "10" <
//     "9"), except that when both parse as RFC 3339 timestamps they compare
//     as instants ("2026-01-01T01:00:00+01:00" equals
//     "2026-01-01T00:00:00Z").
//   - Booleans compare with booleans by eq and ne only.
//   - A type mismatch (the string "5" against the number 5, a number against
//     a boolean, an object or array against anything) fails the condition,
//     for ne as much as for eq: ne means "comparable and different". There is
//     no runtime error; Not gives the full complement.
//   - A missing field and a null field are the same thing, and fail every
//     comparison except: exists (false), eq null (true) and ne null (false).
//     So {op: eq, value: null} is "is null" and {op: ne, value: null} is "is
//     not null".
//   - contains: on a string, substring of a string value; on an array, some
//     element equal to the value by the eq rules; anything else fails.
//   - startsWith, endsWith: strings only.
//   - exists: the field is present and not null; with value false, the
//     opposite.
//
// Field names reach nested objects with dots (see lookup in the package
// documentation).
const (
	OpEq         Op = "eq"
	OpNe         Op = "ne"
	OpGt         Op = "gt"
	OpGte        Op = "gte"
	OpLt         Op = "lt"
	OpLte        Op = "lte"
	OpContains   Op = "contains"
	OpStartsWith Op = "startsWith"
	OpEndsWith   Op = "endsWith"
	OpExists     Op = "exists"
)

// Condition is a Filter condition: either a comparison (Field, Op, Value),
// or And (all hold), Or (any holds) or Not (does not hold) of conditions.
// Exactly one form is set. Value is nil (null), a string, a bool, or a
// number (json.Number or a Go number).
//
// JSON: {"field": "temp", "op": "gt", "value": 20},
// {"and": [c1, c2]}, {"or": [c1, c2]}, {"not": c}.
type Condition struct {
	And   []Condition `json:"and,omitempty"`
	Or    []Condition `json:"or,omitempty"`
	Not   *Condition  `json:"not,omitempty"`
	Field string      `json:"field,omitempty"`
	Op    Op          `json:"op,omitempty"`
	Value any         `json:"value,omitempty"`
}

// maxDepth bounds the nesting of and/or/not.
const maxDepth = 32

func (c Condition) validate(path string, depth int) error {
	if depth > maxDepth {
		return invalid(path, "conditions nest deeper than %d", maxDepth)
	}
	forms := 0
	for _, set := range []bool{len(c.And) > 0, len(c.Or) > 0, c.Not != nil, c.Field != "" || c.Op != ""} {
		if set {
			forms++
		}
	}
	if forms != 1 {
		return invalid(path, "a condition is exactly one of {field, op, value}, {and: [...]}, {or: [...]}, {not: {...}}")
	}
	switch {
	case len(c.And) > 0:
		for i, sub := range c.And {
			if err := sub.validate(index(join(path, "and"), i), depth+1); err != nil {
				return err
			}
		}
		return nil
	case len(c.Or) > 0:
		for i, sub := range c.Or {
			if err := sub.validate(index(join(path, "or"), i), depth+1); err != nil {
				return err
			}
		}
		return nil
	case c.Not != nil:
		return c.Not.validate(join(path, "not"), depth+1)
	}
	if c.Field == "" {
		return invalid(join(path, "field"), "required")
	}
	vp := join(path, "value")
	kind := valueKind(c.Value)
	if kind == "" {
		return invalid(vp, "want a string, number, boolean or null, got %s", jsonKind(c.Value))
	}
	switch c.Op {
	case OpEq, OpNe:
	case OpGt, OpGte, OpLt, OpLte:
		if kind != "string" && kind != "number" {
			return invalid(vp, "%s compares numbers or strings, got %s", c.Op, kind)
		}
	case OpContains:
		if kind == "null" {
			return invalid(vp, "contains needs a string, number or boolean")
		}
	case OpStartsWith, OpEndsWith:
		if kind != "string" {
			return invalid(vp, "%s needs a string, got %s", c.Op, kind)
		}
	case OpExists:
		if kind != "null" && kind != "boolean" {
			return invalid(vp, "exists takes no value, or true/false, got %s", kind)
		}
	case "":
		return invalid(join(path, "op"), "required: one of eq, ne, gt, gte, lt, lte, contains, startsWith, endsWith, exists")
	default:
		return invalid(join(path, "op"), "%q is not one of eq, ne, gt, gte, lt, lte, contains, startsWith, endsWith, exists", c.Op)
	}
	return nil
}

func valueKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	}
	if _, ok := toNumber(v); ok {
		return "number"
	}
	return ""
}

// cond is a compiled Condition.
type cond struct {
	and, or []cond
	not     *cond
	field   string
	op      Op

	null   bool
	str    string
	isStr  bool
	num    number
	isNum  bool
	b      bool
	isBool bool
	tm     int64
	isTime bool
}

func compile(c Condition) cond {
	switch {
	case len(c.And) > 0:
		out := cond{and: make([]cond, len(c.And))}
		for i, sub := range c.And {
			out.and[i] = compile(sub)
		}
		return out
	case len(c.Or) > 0:
		out := cond{or: make([]cond, len(c.Or))}
		for i, sub := range c.Or {
			out.or[i] = compile(sub)
		}
		return out
	case c.Not != nil:
		n := compile(*c.Not)
		return cond{not: &n}
	}
	out := cond{field: c.Field, op: c.Op}
	switch v := c.Value.(type) {
	case nil:
		out.null = true
	case string:
		out.str, out.isStr = v, true
		out.tm, out.isTime = parseTimeString(v)
	case bool:
		out.b, out.isBool = v, true
	default:
		out.num, out.isNum = toNumber(v)
	}
	if c.Op == OpExists && out.null {
		out.b, out.isBool, out.null = true, true, false
	}
	return out
}

// match reports whether the condition holds for row.
func (c *cond) match(row map[string]any) bool {
	switch {
	case c.and != nil:
		for i := range c.and {
			if !c.and[i].match(row) {
				return false
			}
		}
		return true
	case c.or != nil:
		for i := range c.or {
			if c.or[i].match(row) {
				return true
			}
		}
		return false
	case c.not != nil:
		return !c.not.match(row)
	}
	v, present := lookup(row, c.field)
	if c.op == OpExists {
		return present == c.b
	}
	if !present {
		return c.op == OpEq && c.null
	}
	if c.null {
		return c.op == OpNe
	}
	switch c.op {
	case OpEq:
		r, ok := c.compare(v)
		return ok && r == 0
	case OpNe:
		r, ok := c.compare(v)
		return ok && r != 0
	case OpGt:
		r, ok := c.compare(v)
		return ok && r > 0
	case OpGte:
		r, ok := c.compare(v)
		return ok && r >= 0
	case OpLt:
		r, ok := c.compare(v)
		return ok && r < 0
	case OpLte:
		r, ok := c.compare(v)
		return ok && r <= 0
	case OpContains:
		switch x := v.(type) {
		case string:
			return c.isStr && strings.Contains(x, c.str)
		case []any:
			for _, e := range x {
				if r, ok := c.compare(e); ok && r == 0 {
					return true
				}
			}
		}
		return false
	case OpStartsWith:
		s, ok := v.(string)
		return ok && strings.HasPrefix(s, c.str)
	case OpEndsWith:
		s, ok := v.(string)
		return ok && strings.HasSuffix(s, c.str)
	}
	return false
}

// compare orders a row value against the condition value; ok is false on a
// type mismatch. Booleans only ever compare equal (0) or not (1).
func (c *cond) compare(v any) (int, bool) {
	switch x := v.(type) {
	case string:
		if !c.isStr {
			return 0, false
		}
		if c.isTime {
			if t, ok := parseTimeString(x); ok {
				return cmpInt(t, c.tm), true
			}
		}
		return strings.Compare(x, c.str), true
	case bool:
		if !c.isBool {
			return 0, false
		}
		if x == c.b {
			return 0, true
		}
		return 1, true
	case nil:
		return 0, false
	}
	if !c.isNum {
		return 0, false
	}
	n, ok := toNumber(v)
	if !ok {
		return 0, false
	}
	return cmpNumber(n, c.num), true
}
