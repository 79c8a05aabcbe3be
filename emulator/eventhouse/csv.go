package eventhouse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
	"github.com/google/uuid"
)

// kustoTime is the datetime text written: UTC, 7 fractional digits (Kusto's
// 100 ns tick).
const kustoTime = "2006-01-02T15:04:05.0000000Z"

var (
	decimalText  = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)
	timespanText = regexp.MustCompile(`^-?(\d+\.)?\d{1,2}:\d{2}:\d{2}(\.\d{1,7})?$`)
)

// encodeValue renders v as the CSV text of a field of a column of type typ.
// ok is false for a value that does not fit the type (the field is then
// written empty, null); quote asks for the field to be quoted.
func encodeValue(typ string, v any) (text string, quote, ok bool) {
	if v == nil {
		return "", false, true
	}
	switch typ {
	case typeString:
		return asText(v), true, true
	case typeDynamic:
		return asJSON(v), true, true
	case typeLong, typeInt:
		n, ok := rows.Int64(v)
		if !ok || (typ == typeInt && (n < math.MinInt32 || n > math.MaxInt32)) {
			return "", false, false
		}
		return strconv.FormatInt(n, 10), false, true
	case typeReal:
		f, ok := asFloat(v)
		if !ok {
			return "", false, false
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "", false, true
		}
		return strconv.FormatFloat(f, 'g', -1, 64), false, true
	case typeDecimal:
		switch x := v.(type) {
		case json.Number:
			return x.String(), false, true
		case string:
			if decimalText.MatchString(x) {
				return x, false, true
			}
			return "", false, false
		}
		if n, ok := rows.Int64(v); ok {
			return strconv.FormatInt(n, 10), false, true
		}
		if f, ok := asFloat(v); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return strconv.FormatFloat(f, 'f', -1, 64), false, true
		}
		return "", false, false
	case typeBool:
		if b, ok := v.(bool); ok {
			return strconv.FormatBool(b), false, true
		}
		return "", false, false
	case typeDateTime:
		switch x := v.(type) {
		case time.Time:
			return x.UTC().Format(kustoTime), false, true
		case string:
			if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
				return t.UTC().Format(kustoTime), false, true
			}
		}
		return "", false, false
	case typeGUID:
		if s, ok := v.(string); ok {
			if u, err := uuid.Parse(s); err == nil {
				return u.String(), false, true
			}
		}
		return "", false, false
	case typeTimespan:
		switch x := v.(type) {
		case time.Duration:
			return formatTimespan(x), false, true
		case string:
			if timespanText.MatchString(x) {
				return x, false, true
			}
		}
		return "", false, false
	}
	return asText(v), true, true
}

// asText is v as text for a string column.
func asText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	if n, ok := rows.Int64(v); ok {
		return strconv.FormatInt(n, 10)
	}
	return asJSON(v)
}

// asJSON is v as JSON text, without HTML escaping.
func asJSON(v any) string {
	if n, ok := v.(json.Number); ok {
		return n.String()
	}
	if t, ok := v.(time.Time); ok {
		v = t.UTC().Format(time.RFC3339Nano)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		b, _ := json.Marshal(fmt.Sprint(v))
		return string(b)
	}
	return strings.TrimRight(buf.String(), "\n")
}

// asFloat is v as a float64 when it is a number.
func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(x.String(), 64)
		return f, err == nil
	case float64:
		return x, true
	case float32:
		return float64(x), true
	}
	if n, ok := rows.Int64(v); ok {
		return float64(n), true
	}
	switch x := v.(type) {
	case uint:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}

// formatTimespan writes Kusto's [-][d.]hh:mm:ss.fffffff.
func formatTimespan(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	ticks := int64(d / 100)
	const sec = int64(10_000_000)
	days := ticks / (86400 * sec)
	ticks %= 86400 * sec
	h, m, s, frac := ticks/(3600*sec), ticks/(60*sec)%60, ticks/sec%60, ticks%sec
	if days > 0 {
		return sign + strconv.FormatInt(days, 10) + "." + pad2(h) + ":" + pad2(m) + ":" + pad2(s) + "." + pad7(frac)
	}
	return sign + pad2(h) + ":" + pad2(m) + ":" + pad2(s) + "." + pad7(frac)
}

func pad2(n int64) string {
	s := strconv.FormatInt(n, 10)
	return strings.Repeat("0", max(0, 2-len(s))) + s
}
func pad7(n int64) string {
	s := strconv.FormatInt(n, 10)
	return strings.Repeat("0", max(0, 7-len(s))) + s
}

// writeField appends one CSV field, quoted when asked or when its text needs
// it (RFC 4180: a comma, quote, CR or LF), with inner quotes doubled.
func writeField(b *strings.Builder, text string, quote bool) {
	if !quote && !strings.ContainsAny(text, ",\"\r\n") {
		b.WriteString(text)
		return
	}
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(text, `"`, `""`))
	b.WriteByte('"')
}

// rowCost estimates a row's CSV size from its own values only, so that the
// split of a batch does not depend on the table's schema and a retry splits
// the same way.
func rowCost(r mappedRow) int {
	n := 1
	for _, v := range r {
		if v == nil {
			continue
		}
		n += len(asText(v)) + 3
	}
	return n
}

// split cuts a batch into parts of at most maxBytes estimated bytes (a row
// larger than that is a part of its own).
func split(batch []mappedRow, maxBytes int) [][]mappedRow {
	var parts [][]mappedRow
	start, size := 0, 0
	for i, r := range batch {
		c := rowCost(r)
		if i > start && size+c > maxBytes {
			parts = append(parts, batch[start:i])
			start, size = i, 0
		}
		size += c
	}
	return append(parts, batch[start:])
}
