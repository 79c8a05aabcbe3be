package cdc

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// myColumn is a MySQL column as information_schema.COLUMNS describes it.
type myColumn struct {
	Name       string
	DataType   string // lower-case: int, varchar, decimal, datetime, …
	ColumnType string // lower-case: int(10) unsigned, enum('a','b'), …
	Scale      int    // NUMERIC_SCALE (-1 when none)
	Precision  int    // DATETIME_PRECISION (0 when none)
}

// unsigned reports whether the column is an unsigned integer.
func (c myColumn) unsigned() bool { return strings.Contains(c.ColumnType, "unsigned") }

// labels are an enum's or set's members, in order.
func (c myColumn) labels() []string {
	open, closeAt := strings.IndexByte(c.ColumnType, '('), strings.LastIndexByte(c.ColumnType, ')')
	if open < 0 || closeAt <= open {
		return nil
	}
	var out []string
	for part := range strings.SplitSeq(c.ColumnType[open+1:closeAt], "','") {
		out = append(out, strings.ReplaceAll(strings.Trim(part, "'"), "''", "'"))
	}
	return out
}

// MyValue converts a MySQL column value to the JSON value Debezium's MySQL
// connector writes for its type: v is what the binlog decoder gives (Go
// integers, floats, strings, []byte) or a snapshot's text. Integers are
// numbers; DECIMAL per decimalMode; DATE days since the epoch; DATETIME
// milliseconds (precision ≤ 3) or microseconds since the epoch; TIMESTAMP
// ISO-8601 in UTC; TIME microseconds; ENUM and SET their labels; BIT(1) a
// boolean; binary strings base64; JSON its text.
func MyValue(c myColumn, v any, decimalMode string) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch c.DataType {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "year":
		return myInteger(c, v)
	case "float", "double", "real":
		f, err := strconv.ParseFloat(text(v), 64)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", c.DataType, text(v), err)
		}
		return jsonFloat(f), nil
	case "decimal", "numeric":
		return decimalValue(text(v), decimalMode, c.Scale)
	case "date":
		return myDate(text(v))
	case "datetime":
		return myDatetime(text(v), c.Precision)
	case "timestamp":
		return myTimestamp(text(v))
	case "time":
		return myTime(text(v))
	case "enum", "set":
		return myLabels(c, v)
	case "bit":
		return myBit(c, v)
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob", "geometry":
		return base64.StdEncoding.EncodeToString(bytesOf(v)), nil
	}
	return text(v), nil
}

// text is v as text.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	return fmt.Sprint(v)
}

// bytesOf is v's bytes.
func bytesOf(v any) []byte {
	if b, ok := v.([]byte); ok {
		return b
	}
	return []byte(text(v))
}

// myInteger is an integer column's value, unsigned ones read back from
// the binlog's signed encoding.
func myInteger(c myColumn, v any) (any, error) {
	var n int64
	bits := 64
	switch x := v.(type) {
	case int8:
		n, bits = int64(x), 8
	case int16:
		n, bits = int64(x), 16
	case int32:
		n, bits = int64(x), 32
		if c.DataType == "mediumint" {
			bits = 24
		}
	case int64:
		n = x
	case int:
		n = int64(x)
	case uint64:
		return x, nil
	default:
		s := text(v)
		if u, err := strconv.ParseUint(s, 10, 64); err == nil && u > math.MaxInt64 {
			return u, nil
		}
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", c.DataType, s, err)
		}
		return i, nil
	}
	if n < 0 && c.unsigned() {
		if bits == 64 {
			return uint64(n), nil
		}
		return n + 1<<bits, nil
	}
	return n, nil
}

// myDate is days since the epoch (the zero date is null).
func myDate(s string) (any, error) {
	if strings.HasPrefix(s, "0000-00-00") {
		return nil, nil
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return nil, fmt.Errorf("date %q: %w", s, err)
	}
	return t.Unix() / 86400, nil
}

// myDatetime is milliseconds (precision ≤ 3) or microseconds since the epoch.
func myDatetime(s string, precision int) (any, error) {
	if strings.HasPrefix(s, "0000-00-00") {
		return nil, nil
	}
	t, err := time.Parse("2006-01-02 15:04:05.999999", s)
	if err != nil {
		return nil, fmt.Errorf("datetime %q: %w", s, err)
	}
	if precision <= 3 {
		return t.UnixMilli(), nil
	}
	return t.UnixMicro(), nil
}

// myTimestamp is ISO-8601 in UTC (the text is UTC: the binlog reader and
// the snapshot session both use UTC).
func myTimestamp(s string) (any, error) {
	if strings.HasPrefix(s, "0000-00-00") {
		return nil, nil
	}
	t, err := time.Parse("2006-01-02 15:04:05.999999", s)
	if err != nil {
		return nil, fmt.Errorf("timestamp %q: %w", s, err)
	}
	return t.UTC().Format("2006-01-02T15:04:05.999999Z"), nil
}

// myTime is microseconds (TIME may be negative or past 24 hours).
func myTime(s string) (any, error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	hms, frac, _ := strings.Cut(s, ".")
	parts := strings.Split(hms, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("time %q is not [-]H:MM:SS[.ffffff]", s)
	}
	var f [3]int64
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 || n > 1<<31 {
			return nil, fmt.Errorf("time %q is not [-]H:MM:SS[.ffffff]", s)
		}
		f[i] = n
	}
	us := (f[0]*3600+f[1]*60+f[2])*1e6 + micros(frac)
	if neg {
		us = -us
	}
	return us, nil
}

// micros reads up to six fraction digits as microseconds.
func micros(frac string) int64 {
	var us int64
	for i := 0; i < 6; i++ {
		us *= 10
		if i < len(frac) && frac[i] >= '0' && frac[i] <= '9' {
			us += int64(frac[i] - '0')
		}
	}
	return us
}

// myLabels is an enum's label or a set's labels joined with commas (the
// binlog gives the index or the bit mask).
func myLabels(c myColumn, v any) (any, error) {
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case int:
		n = int64(x)
	default:
		return text(v), nil
	}
	labels := c.labels()
	if c.DataType == "enum" {
		if n == 0 {
			return "", nil
		}
		if n < 1 || int(n) > len(labels) {
			return nil, fmt.Errorf("enum index %d outside %s", n, c.ColumnType)
		}
		return labels[n-1], nil
	}
	var out []string
	for i, l := range labels {
		if i < 64 && n&(1<<i) != 0 {
			out = append(out, l)
		}
	}
	return strings.Join(out, ","), nil
}

// myBit is BIT(1) as a boolean, wider BITs as their number.
func myBit(c myColumn, v any) (any, error) {
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	default:
		b := bytesOf(v)
		if len(b) > 8 {
			return nil, fmt.Errorf("bit value of %d bytes", len(b))
		}
		for _, by := range b {
			n = n<<8 | int64(by)
		}
	}
	if c.ColumnType == "bit(1)" {
		return n != 0, nil
	}
	return n, nil
}
