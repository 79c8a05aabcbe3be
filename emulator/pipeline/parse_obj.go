package pipeline

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

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
