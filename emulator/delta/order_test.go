package delta_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// The tests of this file follow fabric-docs "Add a lakehouse destination to
// an eventstream": a new table's schema comes from the first record. The
// order of its columns is the record's own member order, as the issue's
// acceptance test reads it ({"id":1,"a":"x"} makes columns id, a); Microsoft
// does not say how a nested object's members are ordered, and they are
// taken the same way.

func TestJSONFieldOrder(t *testing.T) {
	deep := strings.Repeat(`{"a":`, rows.MaxDepth) + "1" + strings.Repeat("}", rows.MaxDepth)
	deeper := strings.Repeat(`{"a":`, rows.MaxDepth+1) + "1" + strings.Repeat("}", rows.MaxDepth+1)
	for _, c := range []struct {
		text string
		want *delta.FieldOrder
	}{
		{`{"id":1,"a":"x"}`, &delta.FieldOrder{Names: []string{"id", "a"}}},
		{` {"z":1, "m":null, "a":true} `, &delta.FieldOrder{Names: []string{"z", "m", "a"}}},
		{`{"b":1,"a":2,"b":3}`, &delta.FieldOrder{Names: []string{"b", "a"}}},
		{`{"s":{"y":1,"x":{"q":[]}},"arr":[1,{"c":1},[{"b":2,"c":3}]]}`, &delta.FieldOrder{
			Names: []string{"s", "arr"},
			Nested: map[string]*delta.FieldOrder{
				"s":   {Names: []string{"y", "x"}, Nested: map[string]*delta.FieldOrder{"x": {Names: []string{"q"}}}},
				"arr": {Names: []string{"c", "b"}},
			},
		}},
		{`{}`, &delta.FieldOrder{}},
		{`[{"a":1}]`, nil},
		{`"text"`, nil},
		{``, nil},
		{`{"a":`, nil},
		{`{"a":1} {"b":2}`, &delta.FieldOrder{Names: []string{"a"}}}, // what follows is not read, as in package rows
		{deeper, nil},
	} {
		if got := delta.JSONFieldOrder([]byte(c.text)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("JSONFieldOrder(%.40s) = %s, want %s", c.text, orderText(got), orderText(c.want))
		}
	}
	if got := delta.JSONFieldOrder([]byte(deep)); got == nil || len(got.Names) != 1 {
		t.Errorf("JSONFieldOrder of %d nested objects = %s, want an order", rows.MaxDepth, orderText(got))
	}
}

// orderText renders an order for failure messages.
func orderText(o *delta.FieldOrder) string {
	if o == nil {
		return "nil"
	}
	var b strings.Builder
	b.WriteString("[")
	for i, n := range o.Names {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(n)
		if c := o.Nested[n]; c != nil {
			b.WriteString(orderText(c))
		}
	}
	b.WriteString("]")
	return b.String()
}

// jsonOrdered appends JSON objects with the member order of their text,
// counting the rows whose order is asked for.
func jsonOrdered(t *testing.T, tbl *delta.Table, asked *[]int, objects ...string) (delta.Report, error) {
	t.Helper()
	order := func(i int) *delta.FieldOrder {
		*asked = append(*asked, i)
		return delta.JSONFieldOrder([]byte(objects[i]))
	}
	return tbl.AppendReport(context.Background(), jsonRows(t, objects...), delta.WithFieldOrder(order))
}

func TestEnforceColumnsFollowTheFirstRecordsOrder(t *testing.T) {
	for _, c := range []struct {
		name    string
		objects []string
		want    string
	}{
		{"issue's example", []string{`{"id":1,"a":"x"}`, `{"id":2,"b":"y"}`}, "struct<id:long,a:string>"},
		{"reverse alphabetical", []string{`{"z":1,"m":"x","a":true}`}, "struct<z:long,m:string,a:boolean>"},
		{"names made into column names", []string{`{"b c":1,"A":2}`}, "struct<b_c:long,A:long>"},
		{"nested", []string{`{"s":{"y":1,"x":{"q":2,"p":3}},"arr":[{"d":1},{"c":2,"d":3}],"a":0}`},
			"struct<s:struct<y:long,x:struct<q:long,p:long>>,arr:array<struct<d:long,c:long>>,a:long>"},
		{"first record without columns", []string{`{}`, `{"y":1,"x":2}`, `{"x":3}`}, "struct<y:long,x:long>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := tableDir(t)
			var asked []int
			_, err := jsonOrdered(t, enforcing(t, dir), &asked, c.objects...)
			if c.objects[0] == "{}" {
				// {} makes no column: the batch fails, the next record
				// made the schema, and the rest makes the table.
				if err == nil || fmt.Sprint(asked) != "[1]" {
					t.Fatalf("a first record without columns: %v, order asked for rows %v", err, asked)
				}
				asked = nil
				_, err = jsonOrdered(t, enforcing(t, dir), &asked, c.objects[1:]...)
			}
			if err != nil {
				t.Fatalf("AppendReport: %v", err)
			}
			if fmt.Sprint(asked) != "[0]" {
				t.Fatalf("order asked for rows %v, want only the first record's", asked)
			}
			snap := checkTable(t, dir) // delta-rs reads the same schema
			if got := delta.StructOf(snap.Schema.Fields...).String(); got != c.want {
				t.Fatalf("schema %s, want %s", got, c.want)
			}
		})
	}
}

func TestFieldOrderNamesAbsentOrMissingFields(t *testing.T) {
	dir := tableDir(t)
	tbl := enforcing(t, dir)
	order := func(int) *delta.FieldOrder {
		return &delta.FieldOrder{
			Names:  []string{"ghost", "c", "S"},
			Nested: map[string]*delta.FieldOrder{"S": {Names: []string{"n", "m"}}, "ghost": {Names: []string{"x"}}},
		}
	}
	batch := jsonRows(t, `{"a":1,"b":2,"c":3,"s":{"m":1,"n":2,"l":3}}`)
	if _, err := tbl.AppendReport(context.Background(), batch, delta.WithFieldOrder(order)); err != nil {
		t.Fatalf("AppendReport: %v", err)
	}
	// Named members first (S matches s as a member matches its column,
	// regardless of case), the rest in name order; ghost names nothing.
	if got, want := tbl.Schema().String(), "struct<c:long,s:struct<n:long,m:long,l:long>,a:long,b:long>"; got != want {
		t.Fatalf("schema %s, want %s", got, want)
	}
	// An existing table's columns never move, and its order is not asked for.
	asked := 0
	count := func(int) *delta.FieldOrder { asked++; return &delta.FieldOrder{Names: []string{"b", "a"}} }
	if _, err := tbl.AppendReport(context.Background(), jsonRows(t, `{"b":1,"a":2}`), delta.WithFieldOrder(count)); err != nil {
		t.Fatalf("AppendReport: %v", err)
	}
	if asked != 0 || !strings.HasPrefix(tbl.Schema().String(), "struct<c:long,s:") {
		t.Fatalf("order asked %d times, schema %s", asked, tbl.Schema())
	}
	checkTable(t, dir)
}

// TestEvolveNewTableFollowsTheFirstRowsOrder: under SchemaEvolve a new
// table's columns named by the first row come first in its order, the
// other rows' in name order after them.
func TestEvolveNewTableFollowsTheFirstRowsOrder(t *testing.T) {
	dir := tableDir(t)
	var asked []int
	if _, err := jsonOrdered(t, mustOpen(t, dir), &asked, `{"b":1,"a":2}`, `{"d":3,"c":4}`); err != nil {
		t.Fatalf("AppendReport: %v", err)
	}
	if fmt.Sprint(asked) != "[0]" {
		t.Fatalf("order asked for rows %v, want [0]", asked)
	}
	if got := strings.Join(checkTable(t, dir).Schema.Names(), ","); got != "b,a,c,d" {
		t.Fatalf("columns %s, want b,a,c,d", got)
	}
}

func TestAppendReportWithTxn(t *testing.T) {
	tbl := enforcing(t, tableDir(t))
	batch := jsonRows(t, `{"a":1}`)
	r, err := tbl.AppendReport(context.Background(), batch,
		delta.WithTxn(delta.Txn{AppID: "x", Version: 7}), delta.WithTxn(delta.Txn{AppID: "y", Version: 2}))
	if err != nil || r.Version != 0 {
		t.Fatalf("AppendReport: version %d, %v", r.Version, err)
	}
	for app, want := range map[string]int64{"x": 7, "y": 2} {
		if v, ok, err := tbl.TxnVersion(app); err != nil || !ok || v != want {
			t.Fatalf("txn %s: %d %v %v, want %d", app, v, ok, err, want)
		}
	}
	if _, err := tbl.AppendReport(context.Background(), batch, delta.WithTxn(delta.Txn{AppID: "x", Version: 7})); !errors.Is(err, delta.ErrTxnCommitted) {
		t.Fatal("a replayed txn was written again")
	}
}

// FuzzJSONFieldOrder: for any text that package rows reads as a JSON
// object, JSONFieldOrder names each of the row's members once, and an
// appended row takes its columns in that order.
func FuzzJSONFieldOrder(f *testing.F) {
	for _, s := range []string{`{"id":1,"a":"x"}`, `{"b":{"y":1,"x":[{"q":1}]},"a":null}`, `{"a":1,"a":2}`, `[1]`, `{"a":`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		o := delta.JSONFieldOrder([]byte(text))
		r := rows.FromValue([]byte(text))
		_, isText := r[rows.ValueField]
		_, isBytes := r[rows.ValueBase64Field]
		if isText || isBytes || rows.Check(r) != nil {
			return // not an object, or one no table takes
		}
		if o == nil || len(o.Names) != len(r) {
			t.Fatalf("order %s for row %v", orderText(o), r)
		}
		for _, n := range o.Names {
			if _, ok := r[n]; !ok {
				t.Fatalf("order names %q, not a member of %v", n, r)
			}
		}
	})
}
