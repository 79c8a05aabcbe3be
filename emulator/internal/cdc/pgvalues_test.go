package cdc

import (
	"reflect"
	"testing"
)

// TestPGValueMapsTypesAsDebeziumDoes: each type's text, as pgoutput sends
// it, becomes the JSON value Debezium's PostgreSQL connector writes.
func TestPGValueMapsTypesAsDebeziumDoes(t *testing.T) {
	numeric102 := int32((10<<16 | 2) + 4)
	for _, tc := range []struct {
		oid    uint32
		typmod int32
		text   string
		mode   string
		want   any
	}{
		{oidBool, -1, "t", "", true},
		{oidBool, -1, "f", "", false},
		{oidInt4, -1, "-42", "", int64(-42)},
		{oidInt8, -1, "9007199254740993", "", int64(9007199254740993)},
		{oidFloat8, -1, "1.5", "", 1.5},
		{oidFloat8, -1, "NaN", "", "NaN"},
		{oidNumeric, numeric102, "12.34", DecimalPrecise, "BNI="}, // 1234 = 0x04d2
		{oidNumeric, numeric102, "-1.00", DecimalPrecise, "nA=="}, // -100 = 0x9c
		{oidNumeric, numeric102, "1.28", DecimalPrecise, "AIA="},  // 128 needs a sign byte
		{oidNumeric, -1, "1.5", DecimalPrecise, map[string]any{"scale": 1, "value": "Dw=="}},
		{oidNumeric, numeric102, "12.34", DecimalDouble, 12.34},
		{oidNumeric, numeric102, "12.34", DecimalString, "12.34"},
		{oidBytea, -1, `\x0102ff`, "", "AQL/"},
		{oidDate, -1, "1970-01-11", "", int64(10)},
		{oidTime, -1, "01:00:00.5", "", int64(3600e6 + 500e3)},
		{oidTimestamp, 3, "1970-01-01 00:00:01.25", "", int64(1250)},
		{oidTimestamp, -1, "1970-01-01 00:00:01.25", "", int64(1250000)},
		{oidTimestamptz, -1, "2026-03-01 10:00:00.123+02", "", "2026-03-01T08:00:00.123Z"},
		{oidVarchar, -1, "héllo", "", "héllo"},
		{oidUUID, -1, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
	} {
		got, err := PGValue(tc.oid, tc.typmod, []byte(tc.text), tc.mode)
		if err != nil {
			t.Errorf("PGValue(%d, %q): %v", tc.oid, tc.text, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("PGValue(%d, %q, %s) = %#v, want %#v", tc.oid, tc.text, tc.mode, got, tc.want)
		}
	}
}

// TestPGValueRefusesMalformedText: text that is not the type's output
// format is an error, not a made-up value.
func TestPGValueRefusesMalformedText(t *testing.T) {
	for _, tc := range []struct {
		oid  uint32
		text string
	}{
		{oidInt4, "4x"}, {oidFloat8, "one"}, {oidNumeric, "1..2"}, {oidBytea, "0102"},
		{oidDate, "2026-13-01"}, {oidTimestamp, "yesterday"}, {oidTimestamptz, "2026-01-01"},
	} {
		if got, err := PGValue(tc.oid, -1, []byte(tc.text), DecimalPrecise); err == nil {
			t.Errorf("PGValue(%d, %q) = %#v, want an error", tc.oid, tc.text, got)
		}
	}
}

// FuzzPGValue: no input makes the decoder panic, and what it returns
// marshals to JSON.
func FuzzPGValue(f *testing.F) {
	for _, s := range []string{"12.34", "-1e5", `\x00ff`, "2026-01-01 00:00:00+00", "NaN", "t"} {
		f.Add(uint32(oidNumeric), int32(-1), s)
	}
	f.Fuzz(func(t *testing.T, oid uint32, typmod int32, text string) {
		for _, mode := range []string{DecimalPrecise, DecimalDouble, DecimalString} {
			v, err := PGValue(oid, typmod, []byte(text), mode)
			if err != nil {
				continue
			}
			if _, err := (&Row{Names: []string{"c"}, Values: []any{v}}).MarshalJSON(); err != nil {
				t.Fatalf("PGValue(%d, %d, %q) = %#v does not marshal: %v", oid, typmod, text, v, err)
			}
		}
	})
}
