package pipeline

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// apply returns the reshaped copy of in; in is not modified. Rules:
//
//   - keep: when not empty, only the named fields stay (a dotted name keeps
//     that nested member inside its parents); names absent from the row are
//     skipped.
//   - drop: named fields are removed, with the parent objects this leaves
//     empty; absent names are skipped.
//   - cast: each named field present in the row is converted (see FieldType);
//     a null stays null; a value that cannot be converted becomes null and is
//     counted in Stats.CastFailures. The row is never dropped.
//   - rename: all renames happen at once (so {a: b, b: a} swaps); a field
//     absent from the row creates nothing; the new name is a top-level field
//     and replaces any field already called so; a nested source's parents
//     left empty are removed.
//   - compute: each computed field is evaluated on in and set as a top-level
//     field, replacing any field already called so; a failure sets null and
//     is counted in Stats.FunctionFailures.
func (s *fieldsStage) apply(in map[string]any) rows.Row {
	m := &s.m
	var out map[string]any
	if len(m.Keep) > 0 {
		out = make(map[string]any, len(m.Keep))
		for _, name := range m.Keep {
			if segs, ok := resolve(in, name); ok {
				setPath(out, segs, cloneMaps(getPath(in, segs)))
			}
		}
	} else {
		out, _ = cloneMaps(map[string]any(in)).(map[string]any)
	}
	for _, name := range m.Drop {
		if segs, ok := resolve(out, name); ok {
			deletePath(out, segs)
		}
	}
	for _, name := range s.casts {
		segs, ok := resolve(out, name)
		if !ok {
			continue
		}
		v, ok := castValue(getPath(out, segs), m.Cast[name])
		if !ok {
			s.stats.CastFailures++
		}
		setPath(out, segs, v)
	}
	if len(m.Rename) > 0 {
		type moved struct {
			to string
			v  any
		}
		var moves []moved
		for _, from := range s.from {
			if segs, ok := resolve(out, from); ok {
				moves = append(moves, moved{m.Rename[from], getPath(out, segs)})
			}
		}
		for _, from := range s.from {
			if segs, ok := resolve(out, from); ok {
				deletePath(out, segs)
			}
		}
		for _, mv := range moves {
			out[mv.to] = mv.v
		}
	}
	for _, c := range m.Compute {
		v, ok := c.eval(in)
		if !ok {
			s.stats.FunctionFailures++
		}
		out[c.As] = v
	}
	return rows.Row(out)
}

// cloneMaps copies nested objects so that the copy can be changed without
// touching the original; arrays and scalars are shared (they are never
// changed).
func cloneMaps(v any) any {
	m, ok := asMap(v)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		out[k] = cloneMaps(e)
	}
	return out
}

// setPath sets the member at segs, creating parent objects as needed.
func setPath(row map[string]any, segs []string, v any) {
	cur := row
	for _, s := range segs[:len(segs)-1] {
		next, ok := asMap(cur[s])
		if !ok {
			next = map[string]any{}
			cur[s] = next
		}
		cur = next
	}
	cur[segs[len(segs)-1]] = v
}

// deletePath removes the member at segs, and the parent objects that this
// leaves empty.
func deletePath(row map[string]any, segs []string) {
	if len(segs) == 1 {
		delete(row, segs[0])
		return
	}
	next, ok := asMap(row[segs[0]])
	if !ok {
		return
	}
	deletePath(next, segs[1:])
	if len(next) == 0 {
		delete(row, segs[0])
	}
}

// castValue converts v to t by the rules documented on FieldType; ok is
// false when it cannot, and then the value is nil.
func castValue(v any, t FieldType) (any, bool) {
	if v == nil {
		return nil, true
	}
	switch t {
	case TypeString:
		return castString(v)
	case TypeLong:
		return castLong(v)
	case TypeDouble:
		return castDouble(v)
	case TypeBoolean:
		return castBoolean(v)
	case TypeTimestamp:
		if ns, ok := eventTime(v); ok {
			return formatTime(ns), true
		}
		return nil, false
	}
	return nil, false
}

// castString is castValue to TypeString of a non-null value.
func castString(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case json.Number:
		return string(x), true
	}
	if n, ok := toNumber(v); ok {
		return string(n.json().(json.Number)), true
	}
	raw, err := json.Marshal(normalize(v))
	if err != nil {
		return nil, false
	}
	return string(raw), true
}

// castLong is castValue to TypeLong of a non-null value.
func castLong(v any) (any, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return json.Number("1"), true
		}
		return json.Number("0"), true
	case string:
		s := strings.TrimSpace(x)
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return intNumber(i).json(), true
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, false
		}
		return truncate(f)
	}
	n, ok := toNumber(v)
	switch {
	case !ok:
		return nil, false
	case n.isInt:
		return n.json(), true
	}
	return truncate(n.f)
}

// castDouble is castValue to TypeDouble of a non-null value.
func castDouble(v any) (any, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return doubleValue(1), true
		}
		return doubleValue(0), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		return doubleValue(f), true
	}
	if n, ok := toNumber(v); ok {
		return doubleValue(n.float()), true
	}
	return nil, false
}

// castBoolean is castValue to TypeBoolean of a non-null value.
func castBoolean(v any) (any, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "1":
			return true, true
		case "false", "0":
			return false, true
		}
		return nil, false
	}
	if n, ok := toNumber(v); ok {
		return n.float() != 0, true
	}
	return nil, false
}

func truncate(f float64) (any, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= 1<<63 {
		return nil, false
	}
	return intNumber(int64(math.Trunc(f))).json(), true
}
