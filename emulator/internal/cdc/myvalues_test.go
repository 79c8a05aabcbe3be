package cdc

import (
	"reflect"
	"testing"
)

// TestMyValueMapsTypesAsDebeziumDoes: binlog values (Go types) and
// snapshot text become the JSON values Debezium's MySQL connector writes.
func TestMyValueMapsTypesAsDebeziumDoes(t *testing.T) {
	col := func(dt, ct string, scale, prec int) myColumn {
		return myColumn{Name: "c", DataType: dt, ColumnType: ct, Scale: scale, Precision: prec}
	}
	for _, tc := range []struct {
		c    myColumn
		v    any
		mode string
		want any
	}{
		{col("int", "int(11)", 0, 0), int32(-5), "", int64(-5)},
		{col("int", "int(10) unsigned", 0, 0), int32(-1), "", int64(4294967295)},
		{col("tinyint", "tinyint(3) unsigned", 0, 0), int8(-1), "", int64(255)},
		{col("bigint", "bigint(20) unsigned", 0, 0), int64(-1), "", uint64(18446744073709551615)},
		{col("bigint", "bigint(20)", 0, 0), "42", "", int64(42)},
		{col("double", "double", -1, 0), 2.5, "", 2.5},
		{col("decimal", "decimal(10,2)", 2, 0), "12.34", DecimalPrecise, "BNI="},
		{col("decimal", "decimal(10,2)", 2, 0), "12.34", DecimalDouble, 12.34},
		{col("date", "date", -1, 0), "1970-01-11", "", int64(10)},
		{col("date", "date", -1, 0), "0000-00-00", "", nil},
		{col("datetime", "datetime", -1, 0), "1970-01-01 00:00:01", "", int64(1000)},
		{col("datetime", "datetime(6)", -1, 6), "1970-01-01 00:00:01.000002", "", int64(1000002)},
		{col("timestamp", "timestamp", -1, 0), "2026-03-01 10:00:00", "", "2026-03-01T10:00:00Z"},
		{col("time", "time", -1, 0), "-25:00:01.5", "", int64(-(25*3600+1)*1e6 - 500000)},
		{col("enum", "enum('new','paid','it''s')", -1, 0), int64(3), "", "it's"},
		{col("enum", "enum('new','paid')", -1, 0), "paid", "", "paid"},
		{col("set", "set('a','b','c')", -1, 0), int64(5), "", "a,c"},
		{col("bit", "bit(1)", -1, 0), int64(1), "", true},
		{col("blob", "blob", -1, 0), []byte{1, 2, 255}, "", "AQL/"},
		{col("varchar", "varchar(20)", -1, 0), "héllo", "", "héllo"},
		{col("json", "json", -1, 0), []byte(`{"a":1}`), "", `{"a":1}`},
	} {
		got, err := MyValue(tc.c, tc.v, tc.mode)
		if err != nil {
			t.Errorf("MyValue(%s, %#v): %v", tc.c.ColumnType, tc.v, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("MyValue(%s, %#v) = %#v, want %#v", tc.c.ColumnType, tc.v, got, tc.want)
		}
	}
}

// TestMyValueRefusesMalformedValues: values that are not the type's form
// are errors.
func TestMyValueRefusesMalformedValues(t *testing.T) {
	for _, tc := range []struct {
		c myColumn
		v any
	}{
		{myColumn{DataType: "int"}, "x1"},
		{myColumn{DataType: "date"}, "2026-02-30"},
		{myColumn{DataType: "time"}, "10:00"},
		{myColumn{DataType: "enum", ColumnType: "enum('a')"}, int64(2)},
		{myColumn{DataType: "decimal", Scale: 2}, "1.2.3"},
	} {
		if got, err := MyValue(tc.c, tc.v, DecimalPrecise); err == nil {
			t.Errorf("MyValue(%s, %#v) = %#v, want an error", tc.c.DataType, tc.v, got)
		}
	}
}

// FuzzMyValue: no column type and text makes the decoder panic, and what
// it returns marshals to JSON.
func FuzzMyValue(f *testing.F) {
	f.Add("enum", "enum('a','b')", "2", 0)
	f.Add("time", "time", "-838:59:59.000000", 6)
	f.Add("decimal", "decimal(65,30)", "-1e-30", 30)
	f.Add("set", "set('x')", "1", 0)
	f.Fuzz(func(t *testing.T, dataType, columnType, value string, scale int) {
		c := myColumn{Name: "c", DataType: dataType, ColumnType: columnType, Scale: scale, Precision: scale}
		for _, v := range []any{value, []byte(value), int64(len(value)) - 3} {
			got, err := MyValue(c, v, DecimalPrecise)
			if err != nil {
				continue
			}
			if _, err := (&Row{Names: []string{"c"}, Values: []any{got}}).MarshalJSON(); err != nil {
				t.Fatalf("MyValue(%+v, %#v) = %#v does not marshal: %v", c, v, got, err)
			}
		}
	})
}
