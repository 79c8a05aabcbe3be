package delta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// kind is the compiled form of a DataType's name.
type kind uint8

const (
	kNull kind = iota // no non-null value seen yet (inference only)
	kString
	kLong
	kDouble
	kBoolean
	kTimestamp
	kStruct
	kArray
	kOther // a Delta primitive this package neither infers nor writes
)

// kindOf compiles a type name.
func kindOf(name string) kind {
	switch name {
	case TypeString:
		return kString
	case TypeLong:
		return kLong
	case TypeDouble:
		return kDouble
	case TypeBoolean:
		return kBoolean
	case TypeTimestamp:
		return kTimestamp
	case TypeStruct:
		return kStruct
	case TypeArray:
		return kArray
	default:
		return kOther
	}
}

// name returns the Delta type name of k ("" for kNull and kOther).
func (k kind) name() string {
	switch k {
	case kString:
		return TypeString
	case kLong:
		return TypeLong
	case kDouble:
		return TypeDouble
	case kBoolean:
		return TypeBoolean
	case kTimestamp:
		return TypeTimestamp
	case kStruct:
		return TypeStruct
	case kArray:
		return TypeArray
	default:
		return ""
	}
}

// asObject returns v as a JSON object when it is one.
func asObject(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case rows.Row:
		return m, true
	default:
		return nil, false
	}
}

// classify returns the kind inferred for a non-nil value: the documented
// inference rules for one value.
func classify(v any) (kind, error) {
	switch x := v.(type) {
	case string:
		if _, ok := parseTimestamp(x); ok {
			return kTimestamp, nil
		}
		return kString, nil
	case json.Number:
		return numberKind(x), nil
	case bool:
		return kBoolean, nil
	case int, int8, int16, int32, int64, uint8, uint16, uint32:
		return kLong, nil
	case uint:
		if uint64(x) > math.MaxInt64 {
			return kDouble, nil
		}
		return kLong, nil
	case uint64:
		if x > math.MaxInt64 {
			return kDouble, nil
		}
		return kLong, nil
	case float32, float64:
		return kDouble, nil
	case time.Time:
		return kTimestamp, nil
	case map[string]any, rows.Row:
		return kStruct, nil
	case []any:
		return kArray, nil
	default:
		return kNull, fmt.Errorf("unsupported Go value of type %T", v)
	}
}

// numberKind infers long for an integer literal that fits int64, double for
// any other number a float64 holds, and string for a number beyond float64's
// range (or a malformed json.Number), which is then kept as its text.
func numberKind(n json.Number) kind {
	s := string(n)
	if isIntegerLiteral(s) {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return kLong
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return kString
	}
	return kDouble
}

// isIntegerLiteral reports whether s is an optional minus sign and digits.
func isIntegerLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseTimestamp parses an RFC 3339 timestamp with a time zone (Z or an
// offset). A cheap shape check runs before time.Parse so that ordinary
// strings cost little.
func parseTimestamp(s string) (time.Time, bool) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// toFloat64 converts v to a double: any number a float64 holds (integers
// are rounded to the nearest double, as JSON parsers do).
func toFloat64(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) {
			return 0, false
		}
		return f, true
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	default:
		return 0, false
	}
}

// toMicros converts v to a timestamp in microseconds since the Unix epoch,
// UTC; digits below the microsecond are truncated.
func toMicros(v any) (int64, bool) {
	switch x := v.(type) {
	case string:
		t, ok := parseTimestamp(x)
		if !ok {
			return 0, false
		}
		return t.UnixMicro(), true
	case time.Time:
		return x.UnixMicro(), true
	default:
		return 0, false
	}
}

// toText converts any value to the text a string column stores: a string as
// itself, any other value as its compact JSON text.
func toText(v any) string {
	switch x := v.(type) {
	case string:
		if !utf8.ValidString(x) {
			return strings.ToValidUTF8(x, "\uFFFD")
		}
		return x
	case json.Number:
		return string(x)
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	default:
		return jsonText(v)
	}
}

// jsonText encodes v as compact JSON without HTML escaping.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
