package kustofake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Canonical Kusto scalar type names.
const (
	TypeString   = "string"
	TypeLong     = "long"
	TypeInt      = "int"
	TypeReal     = "real"
	TypeBool     = "bool"
	TypeDateTime = "datetime"
	TypeDynamic  = "dynamic"
	TypeGUID     = "guid"
	TypeTimespan = "timespan"
	TypeDecimal  = "decimal"
)

// typeAliases maps every type name the engine parses to its canonical name.
var typeAliases = map[string]string{
	"string": TypeString,
	"long":   TypeLong, "int64": TypeLong,
	"int": TypeInt, "int32": TypeInt,
	"real": TypeReal, "double": TypeReal,
	"bool": TypeBool, "boolean": TypeBool,
	"datetime": TypeDateTime, "date": TypeDateTime,
	"dynamic": TypeDynamic,
	"guid":    TypeGUID, "uuid": TypeGUID, "uniqueid": TypeGUID,
	"timespan": TypeTimespan, "time": TypeTimespan,
	"decimal": TypeDecimal,
}

// CanonicalType returns the canonical name of a Kusto type name or alias, and
// false for a name that is not a Kusto scalar type.
func CanonicalType(name string) (string, bool) {
	t, ok := typeAliases[name]
	return t, ok
}

// dotNetType is the v1 DataType of each canonical type.
var dotNetType = map[string]string{
	TypeString: "String", TypeLong: "Int64", TypeInt: "Int32", TypeReal: "Double",
	TypeBool: "Boolean", TypeDateTime: "DateTime", TypeDynamic: "Object",
	TypeGUID: "Guid", TypeTimespan: "TimeSpan", TypeDecimal: "Decimal",
}

// schemaType is the "Type" of each canonical type in .show table schema as json.
var schemaType = map[string]string{
	TypeString: "System.String", TypeLong: "System.Int64", TypeInt: "System.Int32",
	TypeReal: "System.Double", TypeBool: "System.SByte", TypeDateTime: "System.DateTime",
	TypeDynamic: "System.Object", TypeGUID: "System.Guid", TypeTimespan: "System.TimeSpan",
	TypeDecimal: "System.Data.SqlTypes.SqlDecimal",
}

var decimalText = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.9999999",
	"2006-01-02 15:04:05.9999999Z07:00",
	"2006-01-02 15:04:05.9999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02",
}

// parseField converts one CSV field to a stored value of type typ. Like
// Kusto, a field that does not parse becomes null; an empty field is null
// except in a string column.
func parseField(typ, text string) any {
	if typ == TypeString {
		return text
	}
	if text == "" {
		return nil
	}
	t := strings.TrimSpace(text)
	switch typ {
	case TypeLong:
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return n
		}
	case TypeInt:
		if n, err := strconv.ParseInt(t, 10, 32); err == nil {
			return n
		}
	case TypeReal:
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			return f
		}
	case TypeBool:
		switch strings.ToLower(t) {
		case "true", "1":
			return true
		case "false", "0":
			return false
		}
	case TypeDateTime:
		for _, layout := range dateLayouts {
			if ts, err := time.Parse(layout, t); err == nil {
				return ts.UTC()
			}
		}
	case TypeDynamic:
		if json.Valid([]byte(text)) {
			var buf bytes.Buffer
			if err := json.Compact(&buf, []byte(text)); err == nil {
				return json.RawMessage(buf.Bytes())
			}
		}
		b, _ := json.Marshal(text)
		return json.RawMessage(b)
	case TypeGUID:
		if u, err := uuid.Parse(t); err == nil {
			return u.String()
		}
	case TypeTimespan:
		if d, ok := parseTimespan(t); ok {
			return d
		}
	case TypeDecimal:
		if decimalText.MatchString(t) {
			return t
		}
	}
	return nil
}

// parseTimespan reads [-][d.]hh:mm:ss[.fffffff].
func parseTimespan(s string) (time.Duration, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return 0, false
	}
	var days, hours int64
	if dh := strings.SplitN(parts[0], ".", 2); len(dh) == 2 {
		d, err1 := strconv.ParseInt(dh[0], 10, 64)
		h, err2 := strconv.ParseInt(dh[1], 10, 64)
		if err1 != nil || err2 != nil {
			return 0, false
		}
		days, hours = d, h
	} else {
		h, err := strconv.ParseInt(parts[0], 10, 64)
		if err != nil {
			return 0, false
		}
		hours = h
	}
	mins, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || mins > 59 {
		return 0, false
	}
	secs, err := strconv.ParseFloat(parts[2], 64)
	if err != nil || secs >= 60 {
		return 0, false
	}
	d := time.Duration(days)*24*time.Hour + time.Duration(hours)*time.Hour +
		time.Duration(mins)*time.Minute + time.Duration(math.Round(secs*1e7))*100
	if neg {
		d = -d
	}
	return d, true
}

// formatTimespan writes Kusto's [-][d.]hh:mm:ss.fffffff.
func formatTimespan(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	ticks := int64(d / 100)
	days := ticks / (24 * 3600 * 1e7)
	ticks -= days * 24 * 3600 * 1e7
	h := ticks / (3600 * 1e7)
	ticks -= h * 3600 * 1e7
	m := ticks / (60 * 1e7)
	ticks -= m * 60 * 1e7
	s := ticks / 1e7
	frac := ticks - s*1e7
	if days > 0 {
		return fmt.Sprintf("%s%d.%02d:%02d:%02d.%07d", sign, days, h, m, s, frac)
	}
	return fmt.Sprintf("%s%02d:%02d:%02d.%07d", sign, h, m, s, frac)
}

// wireValue renders a stored value as the JSON value a response row carries.
func wireValue(typ string, v any) any {
	if v == nil {
		if typ == TypeString {
			return ""
		}
		return nil
	}
	switch typ {
	case TypeReal:
		f := v.(float64)
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		}
		return f
	case TypeDateTime:
		return v.(time.Time).UTC().Format("2006-01-02T15:04:05.0000000Z")
	case TypeTimespan:
		return formatTimespan(v.(time.Duration))
	}
	return v
}
