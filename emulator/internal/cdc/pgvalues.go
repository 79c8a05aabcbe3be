package cdc

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// PostgreSQL type OIDs the decoder maps (pg_type.dat).
const (
	oidBool        = 16
	oidBytea       = 17
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidText        = 25
	oidOID         = 26
	oidJSON        = 114
	oidFloat4      = 700
	oidFloat8      = 701
	oidBPChar      = 1042
	oidVarchar     = 1043
	oidDate        = 1082
	oidTime        = 1083
	oidTimestamp   = 1114
	oidTimestamptz = 1184
	oidTimetz      = 1266
	oidNumeric     = 1700
	oidUUID        = 2950
	oidJSONB       = 3802
)

// UnavailableValue is what a column whose value the change did not carry
// (an unchanged TOASTed value) holds: Debezium's placeholder.
const UnavailableValue = "__debezium_unavailable_value"

// PGValue converts a column's text value, as pgoutput sends it, to the
// JSON value Debezium's PostgreSQL connector writes for its type (default
// settings: time.precision.mode adaptive, bytes as base64, decimals per
// decimalMode). typmod is the column's atttypmod (numeric precision and
// scale, timestamp precision); -1 when unknown. A type it does not know
// is its text.
func PGValue(oid uint32, typmod int32, text []byte, decimalMode string) (any, error) {
	s := string(text)
	switch oid {
	case oidBool:
		return s == "t" || s == "true", nil
	case oidInt2, oidInt4, oidInt8, oidOID:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("integer %q: %w", s, err)
		}
		return n, nil
	case oidFloat4, oidFloat8:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("float %q: %w", s, err)
		}
		return jsonFloat(f), nil
	case oidNumeric:
		scale := -1
		if typmod >= 4 {
			scale = int((typmod - 4) & 0xffff)
		}
		return decimalValue(s, decimalMode, scale)
	case oidBytea:
		b, err := pgBytea(s)
		if err != nil {
			return nil, err
		}
		return base64.StdEncoding.EncodeToString(b), nil
	case oidDate:
		return pgDate(s)
	case oidTime:
		return pgTime(s)
	case oidTimestamp:
		return pgTimestamp(s, typmod)
	case oidTimestamptz:
		return pgTimestamptz(s)
	}
	return s, nil // text, varchar, char, uuid, json, jsonb, timetz, enums, arrays, …
}

// pgBytea decodes bytea's hex output (\x…).
func pgBytea(s string) ([]byte, error) {
	h, ok := strings.CutPrefix(s, `\x`)
	if !ok {
		return nil, fmt.Errorf("bytea %q is not in hex output format", s)
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, fmt.Errorf("bytea: %w", err)
	}
	return b, nil
}

// pgDate is Debezium's io.debezium.time.Date: days since the epoch.
func pgDate(s string) (any, error) {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return nil, fmt.Errorf("date %q: %w", s, err)
	}
	return t.Unix() / 86400, nil
}

// pgTime is Debezium's MicroTime: microseconds since midnight.
func pgTime(s string) (any, error) {
	t, err := time.Parse("15:04:05.999999", s)
	if err != nil {
		if s == "24:00:00" {
			return int64(86400e6), nil
		}
		return nil, fmt.Errorf("time %q: %w", s, err)
	}
	return int64(t.Hour())*3600e6 + int64(t.Minute())*60e6 + int64(t.Second())*1e6 + int64(t.Nanosecond()/1000), nil
}

// pgTimestamp is Debezium's Timestamp (milliseconds since the epoch) for
// a precision of 3 or less, MicroTimestamp (microseconds) otherwise.
func pgTimestamp(s string, typmod int32) (any, error) {
	t, err := time.Parse("2006-01-02 15:04:05.999999", s)
	if err != nil {
		return nil, fmt.Errorf("timestamp %q: %w", s, err)
	}
	if typmod >= 0 && typmod <= 3 {
		return t.UnixMilli(), nil
	}
	return t.UnixMicro(), nil
}

// pgTimestamptz is Debezium's ZonedTimestamp: ISO-8601 text in UTC.
func pgTimestamptz(s string) (any, error) {
	for _, layout := range []string{"2006-01-02 15:04:05.999999-07", "2006-01-02 15:04:05.999999-07:00", "2006-01-02 15:04:05.999999-07:00:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Format("2006-01-02T15:04:05.999999Z"), nil
		}
	}
	return nil, fmt.Errorf("timestamptz %q is not in ISO output format", s)
}
