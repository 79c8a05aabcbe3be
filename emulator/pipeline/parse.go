package pipeline

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
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
//	    "window": {"kind": "tumbling"|"hopping", "duration": D, "hop": D,
//	               "offset": D, "on": F, "allowedLateness": D}}
//	{"type": "Aggregate", "on": F, "allowedLateness": D,
//	    "aggregates": [{"fn": FN, "field": F, "as": NAME,
//	                    "partitionBy": [F...], "duration": D}...]}
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
	var items []any
	prefix := "operators"
	single := false
	switch x := doc.(type) {
	case []any:
		items = x
	case map[string]any:
		if list, ok := x["operators"]; ok && len(x) == 1 {
			arr, ok := list.([]any)
			if !ok {
				return nil, invalid("operators", "want an array of operators")
			}
			items = arr
		} else {
			items, single = []any{x}, true
		}
	default:
		return nil, invalid("", "want an operator object or an array of operators")
	}
	path := func(i int) string {
		if single {
			return ""
		}
		return index(prefix, i)
	}
	var parsed []Operator
	for i, item := range items {
		op, err := parseOperator(item, path(i))
		if err != nil {
			return nil, err
		}
		parsed = append(parsed, op)
	}
	// Fuse a seed Window with the window-less GroupBy right after it.
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
		"join":   "it joins two input streams; an emulated eventstream has one stream (its Kafka topic) per source",
		"union":  "it merges two or more input streams; an emulated eventstream has one stream (its Kafka topic) per source",
		"expand": "it turns one event into one per array element; the emulator does not build it",
		"sql":    "the emulator does not interpret Stream Analytics SQL",
	}
	refusedKinds = map[string]string{
		"sliding":  "a sliding window emits whenever an event enters or leaves it, so its output depends on each event's exact timing; use a hopping window with a small hop",
		"session":  "session windows merge per key on inactivity gaps, with state that grows without bound; the emulator does not build them",
		"snapshot": "snapshot windows group events with identical timestamps; the emulator does not build them",
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
	windowKeys := []string{"kind", "duration", "hop", "offset", "on", "allowedLateness"}
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
	case "window":
		if err := o.only(append([]string{"window"}, windowKeys...)...); err != nil {
			return nil, err
		}
		w, err := parseWindowAny(o)
		if err != nil {
			return nil, err
		}
		if w == (Window{}) {
			return nil, invalid(join(path, "kind"), "required: tumbling or hopping")
		}
		return WindowStamp{Name: name, Window: w}, nil
	}
	return nil, invalid(join(path, "type"), "%q is not one of Filter, ManageFields, GroupBy, Aggregate, Window", typ)
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

// ---- Filter ----

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

// ---- ManageFields ----

func parseManageFields(o obj, name string) (Operator, error) {
	keep, err := o.strList("keep")
	if err != nil {
		return nil, err
	}
	drop, err := o.strList("drop")
	if err != nil {
		return nil, err
	}
	rename, err := o.strMap("rename")
	if err != nil {
		return nil, err
	}
	casts, err := o.strMap("cast")
	if err != nil {
		return nil, err
	}
	compute, err := parseCompute(o)
	if err != nil {
		return nil, err
	}
	m := ManageFields{Name: name, Keep: keep, Drop: drop, Rename: rename, Compute: compute}
	if casts != nil {
		m.Cast = map[string]FieldType{}
		for _, f := range sortedKeys(casts) {
			t, ok := fieldTypes[strings.ToLower(strings.TrimSpace(casts[f]))]
			if !ok {
				return nil, invalid(join(join(o.path, "cast"), f), "%q is not one of string, long, double, boolean, timestamp", casts[f])
			}
			m.Cast[f] = t
		}
	}
	return m, nil
}

var fieldTypes = map[string]FieldType{
	"string": TypeString, "nvarchar(max)": TypeString, "nvarchar": TypeString,
	"long": TypeLong, "bigint": TypeLong, "int": TypeLong, "integer": TypeLong,
	"double": TypeDouble, "float": TypeDouble,
	"boolean": TypeBoolean, "bool": TypeBoolean, "bit": TypeBoolean,
	"timestamp": TypeTimestamp, "datetime": TypeTimestamp,
}

// ---- GroupBy ----

var aggAliases = map[string]AggFunc{
	"count": Count, "sum": Sum, "min": Min, "minimum": Min, "max": Max, "maximum": Max,
	"avg": Avg, "average": Avg, "mean": Avg,
}

var refusedFns = map[string]string{
	"percentilecontinuous":        "PercentileContinuous",
	"percentilediscrete":          "PercentileDiscrete",
	"standarddeviation":           "StandardDeviation",
	"standarddeviationpopulation": "StandardDeviationPopulation",
	"variance":                    "Variance",
	"variancepopulation":          "VariancePopulation",
}

func parseGroupBy(o obj, name string) (Operator, error) {
	keys, err := o.strList("keys")
	if err != nil {
		return nil, err
	}
	g := GroupBy{Name: name, Keys: keys}
	raw, ok := o.m["aggregates"]
	if !ok {
		return nil, invalid(join(o.path, "aggregates"), "required: [{fn, field, as}...]")
	}
	list, ok := raw.([]any)
	if !ok || len(list) == 0 {
		return nil, invalid(join(o.path, "aggregates"), "want a non-empty array of {fn, field, as}")
	}
	for i, item := range list {
		p := index(join(o.path, "aggregates"), i)
		am, ok := item.(map[string]any)
		if !ok {
			return nil, invalid(p, "want an object {fn, field, as}")
		}
		ao := obj{m: am, path: p}
		if err := ao.only("fn", "field", "as"); err != nil {
			return nil, err
		}
		fn, err := ao.str("fn", true)
		if err != nil {
			return nil, err
		}
		lower := strings.ToLower(fn)
		if refused, ok := refusedFns[lower]; ok {
			return nil, notSupported(join(p, "fn"), refused, "only count, sum, min, max and avg are built")
		}
		f, ok := aggAliases[lower]
		if !ok {
			return nil, invalid(join(p, "fn"), "%q is not one of count, sum, min, max, avg", fn)
		}
		field, err := ao.str("field", false)
		if err != nil {
			return nil, err
		}
		as, err := ao.str("as", false)
		if err != nil {
			return nil, err
		}
		a := Aggregate{Fn: f, Field: field, As: as}
		a.As = a.Output()
		g.Aggregates = append(g.Aggregates, a)
	}
	w, err := parseWindowAny(o)
	if err != nil {
		return nil, err
	}
	g.Window = w
	if w == (Window{}) {
		// Keys that a preceding seed Window writes are dropped at fusion.
		body := g
		body.Keys = nil
		for _, k := range g.Keys {
			if !reservedWindowField(k) {
				body.Keys = append(body.Keys, k)
			}
		}
		return g, body.validateBody(o.path)
	}
	return g, g.validate(o.path)
}

// parseWindowAny reads a window given as a "window" object or flat on the
// operator; the zero Window means none was given.
func parseWindowAny(o obj) (Window, error) {
	flat := false
	for _, k := range []string{"kind", "duration", "hop", "offset", "on", "allowedLateness"} {
		if _, ok := o.m[k]; ok {
			flat = true
		}
	}
	raw, nested := o.m["window"]
	switch {
	case nested && flat:
		return Window{}, invalid(join(o.path, "window"), "give the window either as \"window\": {...} or as flat members, not both")
	case nested:
		wm, ok := raw.(map[string]any)
		if !ok {
			return Window{}, invalid(join(o.path, "window"), "want an object {kind, duration, hop, offset, on, allowedLateness}")
		}
		wo := obj{m: wm, path: join(o.path, "window")}
		if err := wo.only("kind", "duration", "hop", "hopSize", "offset", "on", "allowedLateness"); err != nil {
			return Window{}, err
		}
		return parseWindow(wo)
	case flat:
		return parseWindow(o)
	}
	return Window{}, nil
}

func parseWindow(o obj) (Window, error) {
	kind, err := o.str("kind", true)
	if err != nil {
		return Window{}, err
	}
	lower := strings.ToLower(kind)
	if reason, refused := refusedKinds[lower]; refused {
		return Window{}, notSupported(join(o.path, "kind"), strings.ToUpper(lower[:1])+lower[1:]+" window", reason)
	}
	w := Window{Kind: WindowKind(lower)}
	if w.Kind != Tumbling && w.Kind != Hopping {
		return Window{}, invalid(join(o.path, "kind"), "%q is not tumbling or hopping", kind)
	}
	if w.Duration, err = o.duration("duration", true); err != nil {
		return Window{}, err
	}
	hopKey := "hop"
	if _, ok := o.m["hopSize"]; ok {
		hopKey = "hopSize"
	}
	if w.Hop, err = o.duration(hopKey, false); err != nil {
		return Window{}, err
	}
	if w.Kind == Tumbling && w.Hop == w.Duration {
		w.Hop = 0
	}
	if w.Offset, err = o.duration("offset", false); err != nil {
		return Window{}, err
	}
	if w.AllowedLateness, err = o.duration("allowedLateness", false); err != nil {
		return Window{}, err
	}
	if w.On, err = o.str("on", false); err != nil {
		return Window{}, err
	}
	if _, given := o.m["on"]; given && w.On == "" {
		return Window{}, invalid(join(o.path, "on"), "must name a field; leave it out for arrival time")
	}
	if err := w.validate(o.path); err != nil {
		return Window{}, err
	}
	return w, nil
}

// ---- typed access to a JSON object, with paths ----

type obj struct {
	m    map[string]any
	path string
}

// only fails on members other than type, name and those listed.
func (o obj) only(allowed ...string) error {
	for _, k := range sortedKeys(o.m) {
		if k == "type" || k == "name" {
			continue
		}
		known := false
		for _, a := range allowed {
			if k == a {
				known = true
				break
			}
		}
		if !known {
			return invalid(join(o.path, k), "unknown member; expected %s", strings.Join(allowed, ", "))
		}
	}
	return nil
}

func (o obj) str(key string, required bool) (string, error) {
	v, ok := o.m[key]
	if !ok || v == nil {
		if required {
			return "", invalid(join(o.path, key), "required")
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", invalid(join(o.path, key), "want a string, got %s", jsonKind(v))
	}
	s = strings.TrimSpace(s)
	if required && s == "" {
		return "", invalid(join(o.path, key), "must not be empty")
	}
	return s, nil
}

func (o obj) strList(key string) ([]string, error) {
	v, ok := o.m[key]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, invalid(join(o.path, key), "want an array of field names, got %s", jsonKind(v))
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, invalid(index(join(o.path, key), i), "want a field name, got %s", jsonKind(e))
		}
		out[i] = s
	}
	return out, nil
}

func (o obj) strMap(key string) (map[string]string, error) {
	v, ok := o.m[key]
	if !ok || v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, invalid(join(o.path, key), "want an object of field names to strings, got %s", jsonKind(v))
	}
	out := make(map[string]string, len(m))
	for _, k := range sortedKeys(m) {
		s, ok := m[k].(string)
		if !ok {
			return nil, invalid(join(join(o.path, key), k), "want a string, got %s", jsonKind(m[k]))
		}
		out[k] = s
	}
	return out, nil
}

var durationUnits = map[string]time.Duration{
	"microsecond": time.Microsecond, "millisecond": time.Millisecond, "second": time.Second,
	"minute": time.Minute, "hour": time.Hour, "day": 24 * time.Hour, "week": 7 * 24 * time.Hour,
}

// duration reads a Go duration string or Fabric's {value, unit}.
func (o obj) duration(key string, required bool) (time.Duration, error) {
	p := join(o.path, key)
	v, ok := o.m[key]
	if !ok || v == nil {
		if required {
			return 0, invalid(p, "required: a duration such as \"1m\"")
		}
		return 0, nil
	}
	switch x := v.(type) {
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(x))
		if err != nil {
			return 0, invalid(p, "%q is not a duration such as \"90s\", \"1m\" or \"1h30m\"", x)
		}
		return d, nil
	case map[string]any:
		do := obj{m: x, path: p}
		if err := do.only("value", "unit"); err != nil {
			return 0, err
		}
		n, ok := x["value"].(json.Number)
		if !ok {
			return 0, invalid(join(p, "value"), "want an integer")
		}
		count, err := n.Int64()
		if err != nil || count < 0 {
			return 0, invalid(join(p, "value"), "want a non-negative integer, got %s", n)
		}
		unitName, err := do.str("unit", true)
		if err != nil {
			return 0, err
		}
		unit, ok := durationUnits[strings.ToLower(unitName)]
		if !ok {
			switch strings.ToLower(unitName) {
			case "month", "quarter", "year", "dayofyear", "weekday":
				return 0, notSupported(join(p, "unit"), unitName, "calendar units have no fixed length; use Day or Week")
			}
			return 0, invalid(join(p, "unit"), "%q is not one of Microsecond, Millisecond, Second, Minute, Hour, Day, Week", unitName)
		}
		if count > int64(maxDuration/unit) {
			return 0, invalid(p, "longer than the %v the emulator allows", maxDuration)
		}
		return time.Duration(count) * unit, nil
	}
	return 0, invalid(p, "want a duration string such as \"1m\", or {value, unit}; got %s", jsonKind(v))
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
