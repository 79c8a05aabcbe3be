package eventhouse

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kusto type names used by the mapping.
const (
	typeString   = "string"
	typeLong     = "long"
	typeInt      = "int"
	typeReal     = "real"
	typeBool     = "bool"
	typeDateTime = "datetime"
	typeDynamic  = "dynamic"
	typeGUID     = "guid"
	typeTimespan = "timespan"
	typeDecimal  = "decimal"
)

// canonicalType normalises the type names an engine may report.
var canonicalType = map[string]string{
	"string": typeString,
	"long":   typeLong, "int64": typeLong,
	"int": typeInt, "int32": typeInt,
	"real": typeReal, "double": typeReal,
	"bool": typeBool, "boolean": typeBool,
	"datetime": typeDateTime, "date": typeDateTime,
	"dynamic": typeDynamic,
	"guid":    typeGUID, "uuid": typeGUID, "uniqueid": typeGUID,
	"timespan": typeTimespan, "time": typeTimespan,
	"decimal": typeDecimal,
}

// column is a table column as the engine reports it.
type column struct {
	Name string
	Type string
}

// valueType is the Kusto type a new column would take from v, and false for
// null, which carries no type.
func valueType(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case bool:
		return typeBool, true
	case json.Number:
		if _, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return typeLong, true
		}
		return typeReal, true
	case string:
		return typeString, true
	case int, int8, int16, int32, int64, uint8, uint16, uint32:
		return typeLong, true
	case uint:
		if uint64(x) > math.MaxInt64 {
			return typeReal, true
		}
		return typeLong, true
	case uint64:
		if x > math.MaxInt64 {
			return typeReal, true
		}
		return typeLong, true
	case float32, float64:
		return typeReal, true
	case time.Time:
		return typeDateTime, true
	}
	return typeDynamic, true
}

// mergeTypes combines the types seen for one field in one batch.
func mergeTypes(a, b string) string {
	switch {
	case a == "" || a == b:
		return b
	case b == "":
		return a
	case (a == typeLong && b == typeReal) || (a == typeReal && b == typeLong):
		return typeReal
	}
	return typeDynamic
}

// inferColumns returns the type each column of the batch would take if new
// ("" when the batch holds only nulls for it), and the columns in sorted order.
func inferColumns(batch []mappedRow) (map[string]string, []string) {
	types := map[string]string{}
	for _, r := range batch {
		for col, v := range r {
			t, ok := valueType(v)
			if !ok {
				if _, seen := types[col]; !seen {
					types[col] = ""
				}
				continue
			}
			types[col] = mergeTypes(types[col], t)
		}
	}
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	slices.Sort(names)
	return types, names
}

// mergeList is the column list of .create-merge: the batch's columns with the
// type the table already has for them (from known, when known), else the
// inferred type, a null-only column taking string. Known columns come first in
// the table's order, new ones after in sorted order.
func mergeList(known []column, inferred map[string]string, names []string) []column {
	var out []column
	have := map[string]bool{}
	for _, c := range known {
		if _, ok := inferred[c.Name]; ok {
			out = append(out, c)
			have[c.Name] = true
		}
	}
	for _, n := range names {
		if have[n] {
			continue
		}
		t := inferred[n]
		if t == "" {
			t = typeString
		}
		out = append(out, column{Name: n, Type: t})
	}
	return out
}

// parseSchema reads the Schema text of .show table T schema as json.
func parseSchema(text string) ([]column, error) {
	var s struct {
		OrderedColumns []struct {
			Name    string
			Type    string
			CslType string
		}
	}
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return nil, fmt.Errorf("parse table schema: %w", err)
	}
	cols := make([]column, len(s.OrderedColumns))
	for i, c := range s.OrderedColumns {
		t, ok := canonicalType[strings.ToLower(c.CslType)]
		if !ok {
			t = strings.ToLower(c.CslType)
		}
		cols[i] = column{Name: c.Name, Type: t}
	}
	return cols, nil
}

// createMergeText is the column list of .create-merge, every name quoted.
func createMergeText(cols []column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = QuoteName(c.Name) + ":" + c.Type
	}
	return strings.Join(parts, ", ")
}
