package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// col returns field name of every output row, as text.
func col(out []rows.Row, name string) string {
	var parts []string
	for _, r := range out {
		parts = append(parts, fmt.Sprint(r[name]))
	}
	return strings.Join(parts, " ")
}

// atS renders an event time s seconds (fractions allowed) after t0.
func atS(s float64) string {
	return t0.Add(time.Duration(s * float64(time.Second))).Format(time.RFC3339Nano)
}

func TestAggregateFunctions(t *testing.T) {
	p := mustPipeline(t, `[{"type":"Aggregate","on":"ts","aggregates":[
		{"fn":"Average","field":"v","duration":"10s"},
		{"fn":"Sum","field":"v","duration":"10s"},
		{"fn":"Minimum","field":"v","duration":"10s"},
		{"fn":"Maximum","field":"v","duration":"10s"},
		{"fn":"Count","field":"v","duration":"10s"},
		{"fn":"count","duration":"10s","as":"rows"}]}]`)
	var docs []string
	for i, v := range []string{`3`, `-1`, `7`, `0.5`, `10`, `20`, `30`} {
		docs = append(docs, fmt.Sprintf(`{"ts":%q,"v":%s}`, atS(float64(i*4)), v))
	}
	// Times 0 4 8 12 16 20 24: each row sees itself and the rows of the
	// last 10s: (t-10s, t].
	out := p.Process(events(docs...))
	for name, want := range map[string]string{
		"AVG_v":   "3.0 1.0 3.0 2.1666666666666665 5.833333333333333 10.166666666666666 20.0",
		"SUM_v":   "3 2 9 6.5 17.5 30.5 60",
		"MIN_v":   "3 -1 -1 -1.0 0.5 0.5 10",
		"MAX_v":   "3 3 7 7.0 10.0 20.0 30",
		"COUNT_v": "1 2 3 3 3 3 3",
		"rows":    "1 2 3 3 3 3 3",
	} {
		if got := col(out, name); got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	// The input passes through untouched.
	if got := texts(out)[0]; got != `{"AVG_v":3.0,"COUNT_v":1,"MAX_v":3,"MIN_v":3,"SUM_v":3,"rows":1,"ts":"2026-01-01T00:00:00Z","v":3}` {
		t.Fatalf("row %s", got)
	}
	if s := p.Stats(); s.Rows != 7 || s.Late != 0 || !p.Stateful() {
		t.Fatalf("stats %+v", s)
	}
}

func TestAggregateExactSums(t *testing.T) {
	p := mustPipeline(t, `[{"type":"Aggregate","on":"ts","aggregates":[
		{"fn":"sum","field":"v","duration":"1h"},{"fn":"avg","field":"v","duration":"1h"},
		{"fn":"sum","field":"i","duration":"1h"}]}]`)
	out := p.Process(events(
		fmt.Sprintf(`{"ts":%q,"v":1e16,"i":9223372036854775807}`, atS(1)),
		fmt.Sprintf(`{"ts":%q,"v":1,"i":1}`, atS(2)),
		fmt.Sprintf(`{"ts":%q,"v":-1e16,"i":-9223372036854775807}`, atS(3)),
		fmt.Sprintf(`{"ts":%q,"v":0.1,"i":0}`, atS(4)),
	))
	// 1e16 + 1 is not a double, but the sum is exact: after -1e16 the 1 is
	// still there; (1e16 + 1)/2 rounds to even. Integer sums past int64
	// become doubles until they fit again.
	if got, want := col(out, "SUM_v"), "1e+16 1e+16 1.0 1.1"; got != want {
		t.Errorf("SUM_v = %s, want %s", got, want)
	}
	if got, want := col(out, "AVG_v"), "1e+16 5e+15 0.3333333333333333 0.275"; got != want {
		t.Errorf("AVG_v = %s, want %s", got, want)
	}
	if got, want := col(out, "SUM_i"), "9223372036854775807 9.223372036854776e+18 1 1"; got != want {
		t.Errorf("SUM_i = %s, want %s", got, want)
	}
}

func TestAggregatePartitionBy(t *testing.T) {
	p := mustPipeline(t, `[{"type":"Aggregate","on":"ts","aggregates":[
		{"fn":"sum","field":"v","partitionBy":["site","dev.id"],"duration":"1m","as":"per_dev"},
		{"fn":"sum","field":"v","partitionBy":["site"],"duration":"1m","as":"per_site"},
		{"fn":"sum","field":"v","duration":"1m","as":"all"}]}]`)
	out := p.Process(events(
		fmt.Sprintf(`{"ts":%q,"site":"oslo","dev":{"id":"a"},"v":1}`, atS(1)),
		fmt.Sprintf(`{"ts":%q,"site":"oslo","dev":{"id":"b"},"v":10}`, atS(2)),
		fmt.Sprintf(`{"ts":%q,"site":"oslo","dev":{"id":"a"},"v":100}`, atS(3)),
		fmt.Sprintf(`{"ts":%q,"site":"rome","dev":{"id":"a"},"v":1000}`, atS(4)),
		fmt.Sprintf(`{"ts":%q,"site":"oslo","dev":{"id":"b"},"v":1.0e4}`, atS(5)),
		fmt.Sprintf(`{"ts":%q,"dev":{"id":"a"},"v":5}`, atS(6)),             // missing site: the null partition
		fmt.Sprintf(`{"ts":%q,"site":null,"dev":{"id":"a"},"v":6}`, atS(7)), // null alike
		fmt.Sprintf(`{"ts":%q,"site":1,"v":7}`, atS(8)),
		fmt.Sprintf(`{"ts":%q,"site":1.0,"v":8}`, atS(9)),  // 1.0 partitions with 1
		fmt.Sprintf(`{"ts":%q,"site":"1","v":9}`, atS(10)), // the string does not
	))
	for name, want := range map[string]string{
		"per_dev":  "1 10 101 1000 10010.0 5 11 7 15 9",
		"per_site": "1 11 111 1000 10111.0 5 11 7 15 9",
		"all":      "1 11 111 1111 11111.0 11116.0 11122.0 11129.0 11137.0 11146.0",
	} {
		if got := col(out, name); got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
}

func TestAggregateDurationExpiry(t *testing.T) {
	p := mustPipeline(t, `[{"type":"Aggregate","on":"ts","aggregates":[
		{"fn":"count","duration":"10s","as":"n"},{"fn":"sum","field":"v","duration":"10s","as":"s"}]}]`)
	out := p.Process(events(
		fmt.Sprintf(`{"ts":%q,"v":1}`, atS(0)),
		fmt.Sprintf(`{"ts":%q,"v":2}`, atS(5)),
		fmt.Sprintf(`{"ts":%q,"v":4}`, atS(9.999999999)), // (t-10s, t] still holds 0
		fmt.Sprintf(`{"ts":%q,"v":8}`, atS(10)),          // 0 is exactly 10s back: out
		fmt.Sprintf(`{"ts":%q,"v":16}`, atS(15)),         // 5 is out too
		fmt.Sprintf(`{"ts":%q,"v":32}`, atS(60)),         // all gone
		fmt.Sprintf(`{"ts":%q,"v":64}`, atS(60)),         // same time: counted
	))
	if got, want := col(out, "n"), "1 2 3 3 3 1 2"; got != want {
		t.Errorf("n = %s, want %s", got, want)
	}
	if got, want := col(out, "s"), "1 3 7 14 28 32 96"; got != want {
		t.Errorf("s = %s, want %s", got, want)
	}
	// Only the rows a later row can count are kept.
	snap, _ := p.Snapshot()
	var st snapshot
	if err := json.Unmarshal(snap, &st); err != nil {
		t.Fatal(err)
	}
	for _, se := range st.Rolling[0].Series {
		if len(se.Times) != 2 {
			t.Fatalf("kept %d rows: %s", len(se.Times), snap)
		}
	}
}

// TestAggregateNulls: null, missing and non-numeric values enter no sum,
// min, max or avg (null when nothing numeric is in range) and no count of
// the field; the row still passes and counts as a row.
func TestAggregateNulls(t *testing.T) {
	p := mustPipeline(t, `[{"type":"Aggregate","on":"ts","aggregates":[
		{"fn":"avg","field":"v","duration":"1m"},{"fn":"max","field":"v","duration":"1m"},
		{"fn":"count","field":"v","duration":"1m"},{"fn":"count","duration":"1m"},
		{"fn":"sum","field":"v","duration":"1m","as":"v"}]}]`)
	out := p.Process(events(
		fmt.Sprintf(`{"ts":%q,"v":null}`, atS(1)),
		fmt.Sprintf(`{"ts":%q}`, atS(2)),
		fmt.Sprintf(`{"ts":%q,"v":"7"}`, atS(3)),
		fmt.Sprintf(`{"ts":%q,"v":4}`, atS(4)),
		fmt.Sprintf(`{"ts":%q,"v":true}`, atS(5)),
		`{"v":100}`, // no time: passes with nulls, counts nowhere
		fmt.Sprintf(`{"ts":%q,"v":{"x":1}}`, atS(6)),
	))
	want := []string{
		`{"AVG_v":null,"COUNT":1,"COUNT_v":0,"MAX_v":null,"ts":"2026-01-01T00:00:01Z","v":null}`,
		`{"AVG_v":null,"COUNT":2,"COUNT_v":0,"MAX_v":null,"ts":"2026-01-01T00:00:02Z","v":null}`,
		`{"AVG_v":null,"COUNT":3,"COUNT_v":1,"MAX_v":null,"ts":"2026-01-01T00:00:03Z","v":null}`,
		`{"AVG_v":4.0,"COUNT":4,"COUNT_v":2,"MAX_v":4,"ts":"2026-01-01T00:00:04Z","v":4}`,
		`{"AVG_v":4.0,"COUNT":5,"COUNT_v":3,"MAX_v":4,"ts":"2026-01-01T00:00:05Z","v":4}`,
		`{"AVG_v":null,"COUNT":null,"COUNT_v":null,"MAX_v":null,"v":null}`,
		`{"AVG_v":4.0,"COUNT":6,"COUNT_v":4,"MAX_v":4,"ts":"2026-01-01T00:00:06Z","v":4}`,
	}
	if got := texts(out); !equalTexts(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// "7", true and {"x":1} once each (three aggregates read v numerically).
	if s := p.Stats(); s.NonNumeric != 3 || s.MissingTime != 1 || s.Rows != 7 {
		t.Fatalf("stats %+v", s)
	}
}

func TestAggregateLateRows(t *testing.T) {
	p := mustPipeline(t, `[{"type":"Aggregate","on":"ts","allowedLateness":"5s","aggregates":[
		{"fn":"sum","field":"v","duration":"10s","as":"s"}]}]`)
	out := p.Process(events(
		fmt.Sprintf(`{"ts":%q,"v":1}`, atS(10)),
		fmt.Sprintf(`{"ts":%q,"v":2}`, atS(20)),    // (10,20]: 1 is out
		fmt.Sprintf(`{"ts":%q,"v":4}`, atS(16)),    // within lateness, at 16: (6,16] holds 1
		fmt.Sprintf(`{"ts":%q,"v":8}`, atS(21)),    // (11,21]: 2, 4
		fmt.Sprintf(`{"ts":%q,"v":16}`, atS(2)),    // late: taken at 21-5 = 16: (6,16] holds 1, 4
		fmt.Sprintf(`{"ts":%q,"v":32}`, atS(25.5)), // (15.5,25.5]: 2 4 8 16
	))
	if got, want := col(out, "s"), "1 2 5 14 21 62"; got != want {
		t.Fatalf("s = %s, want %s", got, want)
	}
	if s := p.Stats(); s.Late != 1 {
		t.Fatalf("late = %d", s.Late)
	}
}

func TestAggregateArrivalTime(t *testing.T) {
	p := mustPipeline(t, `{"type":"aggregate","aggregates":[{"fn":"sum","field":"v","partitionBy":["k"],"duration":{"value":2,"unit":"Second"}}]}`)
	// events() stamps records t0, t0+1s, t0+2s, …
	out := p.Process(events(`{"k":"a","v":1}`, `{"k":"a","v":2}`, `{"k":"b","v":4}`, `{"k":"a","v":8}`))
	if got, want := col(out, "SUM_v"), "1 3 4 8"; got != want { // at 3s, (1s,3s] no longer holds 1s
		t.Fatalf("SUM_v = %s, want %s", got, want)
	}
	// A record without a timestamp has no arrival time.
	out = p.Process([]Event{{Row: row(`{"k":"a","v":1}`), Offset: -1}})
	if got := col(out, "SUM_v"); got != "<nil>" || p.Stats().MissingTime != 1 {
		t.Fatalf("SUM_v = %s, stats %+v", got, p.Stats())
	}
}

func TestAggregateParse(t *testing.T) {
	ops := mustParse(t, `[{"type":"Aggregate","name":"roll","on":"ts","allowedLateness":"30s","aggregates":[
		{"fn":"Average","field":"dev.temp","partitionBy":["site","dev.id"],"duration":{"value":5,"unit":"Minute"}},
		{"fn":"COUNT","duration":"1h"},
		{"fn":"max","field":"v","duration":"90s","as":"peak"}]}]`)
	want := []Operator{RollingAggregate{Name: "roll", On: "ts", AllowedLateness: 30 * time.Second, Aggregates: []Rolling{
		{Fn: Avg, Field: "dev.temp", As: "AVG_dev_temp", PartitionBy: []string{"site", "dev.id"}, Duration: 5 * time.Minute},
		{Fn: Count, As: "COUNT", Duration: time.Hour},
		{Fn: Max, Field: "v", As: "peak", Duration: 90 * time.Second},
	}}}
	if !reflect.DeepEqual(ops, want) {
		t.Fatalf("got  %#v\nwant %#v", ops, want)
	}
	canon, err := Format(ops)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"type":"Aggregate","name":"roll","aggregates":[{"fn":"avg","field":"dev.temp","as":"AVG_dev_temp","partitionBy":["site","dev.id"],"duration":"5m0s"},{"fn":"count","as":"COUNT","duration":"1h0m0s"},{"fn":"max","field":"v","as":"peak","duration":"1m30s"}],"on":"ts","allowedLateness":"30s"}]`; string(canon) != want {
		t.Fatalf("canonical\n%s\nwant\n%s", canon, want)
	}
	if again := mustParse(t, string(canon)); !reflect.DeepEqual(again, ops) {
		t.Fatalf("canonical form parses to %#v", again)
	}
	// Hand-built operators are checked by New the same way.
	if _, err := New([]Operator{RollingAggregate{Aggregates: []Rolling{{Fn: Sum, Duration: time.Minute}}}}); err == nil ||
		err.(*ValidationError).Field != "operators[0].aggregates[0].field" {
		t.Fatalf("New: %v", err)
	}
	if got := (Rolling{Fn: Min, Field: "a.b"}).Output(); got != "MIN_a_b" {
		t.Fatalf("Output %q", got)
	}
}

func TestAggregateBadSpecs(t *testing.T) {
	for _, tc := range []struct {
		doc, field string
		refused    string // a *NotSupportedError naming this
	}{
		{`[{"type":"Aggregate"}]`, "operators[0].aggregates", ""},
		{`[{"type":"Aggregate","aggregates":[]}]`, "operators[0].aggregates", ""},
		{`[{"type":"Aggregate","aggregates":[{"field":"v","duration":"1m"}]}]`, "operators[0].aggregates[0].fn", ""},
		{`[{"type":"Aggregate","aggregates":[{"fn":"median","field":"v","duration":"1m"}]}]`, "operators[0].aggregates[0].fn", ""},
		{`[{"type":"Aggregate","aggregates":[{"fn":"avg","duration":"1m"}]}]`, "operators[0].aggregates[0].field", ""},
		{`[{"type":"Aggregate","aggregates":[{"fn":"avg","field":"v"}]}]`, "operators[0].aggregates[0].duration", ""},
		{`[{"type":"Aggregate","aggregates":[{"fn":"avg","field":"v","duration":"0s"}]}]`, "operators[0].aggregates[0].duration", ""},
		{`[{"type":"Aggregate","aggregates":[{"fn":"avg","field":"v","duration":"-1m"}]}]`, "operators[0].aggregates[0].duration", ""},
		{`[{"type":"Aggregate","aggregates":[{"fn":"avg","field":"v","duration":"soon"}]}]`, "operators[0].aggregates[0].duration", ""},
		{`[{"type":"Aggregate","aggregates":[{"fn":"avg","field":"v","duration":{"value":1,"unit":"Fortnight"}}]}]`, "operators[0].aggregates[0].duration.unit", ""},
		{`[{"type":"Aggregate","aggregates":[{"fn":"avg","field":"v","duration":"100000h"}]}]`, "operators[0].aggregates[0].duration", ""},
		{`[{"type":"Aggregate","aggregates":[{"fn":"avg","field":"v","duration":"1m","partitionBy":["a","a"]}]}]`, "operators[0].aggregates[0].partitionBy[1]", ""},
		{`[{"type":"Aggregate","aggregates":[{"fn":"avg","field":"v","duration":"1m","partitionBy":[""]}]}]`, "operators[0].aggregates[0].partitionBy[0]", ""},
		{`[{"type":"Aggregate","aggregates":[{"fn":"avg","field":"v","duration":"1m","partitionBy":"a"}]}]`, "operators[0].aggregates[0].partitionBy", ""},
		{`[{"type":"Aggregate","aggregates":[{"fn":"avg","field":"v","duration":"1m"},{"fn":"sum","field":"w","as":"AVG_v","duration":"1m"}]}]`, "operators[0].aggregates[1].as", ""},
		{`[{"type":"Aggregate","aggregates":[{"fn":"avg","field":"v","duration":"1m","window":"x"}]}]`, "operators[0].aggregates[0].window", ""},
		{`[{"type":"Aggregate","keys":["a"],"aggregates":[{"fn":"avg","field":"v","duration":"1m"}]}]`, "operators[0].keys", ""},
		{`[{"type":"Aggregate","on":"","aggregates":[{"fn":"avg","field":"v","duration":"1m"}]}]`, "operators[0].on", ""},
		{`[{"type":"Aggregate","allowedLateness":"-1s","aggregates":[{"fn":"avg","field":"v","duration":"1m"}]}]`, "operators[0].allowedLateness", ""},
		{`[{"type":"Filter","condition":{"field":"a","op":"exists"}},{"type":"Aggregate","aggregates":[{"fn":"PercentileContinuous","field":"v","duration":"1m"}]}]`, "operators[1].aggregates[0].fn", "PercentileContinuous"},
		{`[{"type":"Aggregate","aggregates":[{"fn":"variancePopulation","field":"v","duration":"1m"}]}]`, "operators[0].aggregates[0].fn", "VariancePopulation"},
		{`[{"type":"Aggregate","aggregates":[{"fn":"avg","field":"v","duration":{"value":1,"unit":"Month"}}]}]`, "operators[0].aggregates[0].duration.unit", "Month"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc))
			var ve *ValidationError
			var ns *NotSupportedError
			switch {
			case tc.refused != "" && errors.As(err, &ns):
				if ns.Field != tc.field || ns.Name != tc.refused {
					t.Fatalf("refused %q at %q, want %q at %q", ns.Name, ns.Field, tc.refused, tc.field)
				}
			case tc.refused == "" && errors.As(err, &ve):
				if ve.Field != tc.field || ve.Message == "" {
					t.Fatalf("error at %q (%v), want %q", ve.Field, err, tc.field)
				}
			default:
				t.Fatalf("Parse(%s) = %v", tc.doc, err)
			}
		})
	}
}

// TestAggregateAgainstReference compares the operator with a direct
// computation over every row fed so far, on a stream with partitions,
// out-of-order and late rows and values of every type.
func TestAggregateAgainstReference(t *testing.T) {
	const doc = `[{"type":"Aggregate","on":"ts","allowedLateness":"20s","aggregates":[
		{"fn":"avg","field":"v","partitionBy":["dev"],"duration":"1m"},
		{"fn":"sum","field":"v","duration":"30s"},
		{"fn":"min","field":"v","partitionBy":["dev"],"duration":"45s"},
		{"fn":"max","field":"v","duration":"2m"},
		{"fn":"count","field":"v","partitionBy":["dev","ok"],"duration":"1m"},
		{"fn":"count","duration":"10s"}]}]`
	evs := stream(1500, 11)
	// A lateness longer than the durations: rows older than a partition's
	// running window still count for rows of their own time.
	long := strings.Replace(strings.Replace(doc, `"20s"`, `"100s"`, 1), `"2m"`, `"7s"`, 1)
	for _, d := range []string{long, doc} {
		p := mustPipeline(t, d)
		got := texts(p.Process(evs))
		want := referenceRolling(mustParse(t, d)[0].(RollingAggregate), evs)
		if !equalTexts(got, want) {
			t.Fatalf("%s", firstDiff(got, want))
		}
		if s := p.Stats(); (d == doc && s.Late == 0) || s.NonNumeric == 0 {
			t.Fatalf("the stream exercised too little: %+v", s)
		}
	}
	p := mustPipeline(t, doc)
	p.Process(evs)
	// The state is bounded by the rows of duration + lateness of stream
	// time (the stream moves 5s a row).
	snap, _ := p.Snapshot()
	var st snapshot
	if err := json.Unmarshal(snap, &st); err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, se := range st.Rolling[0].Series {
		kept += len(se.Times)
	}
	if kept > 6*(140/5+2) {
		t.Fatalf("%d rows kept", kept)
	}
}

type refEntry struct {
	agg int
	key string
	t   int64
	v   number
}

func referenceRolling(r RollingAggregate, evs []Event) []string {
	var hist []refEntry
	var maxT int64
	seen := false
	var out []rows.Row
	for _, ev := range evs {
		o := rows.Row{}
		for k, v := range ev.Row {
			o[k] = v
		}
		t, ok := Window{On: r.On}.timeOf(ev)
		if !ok {
			for _, a := range r.Aggregates {
				o[a.Output()] = nil
			}
			out = append(out, o)
			continue
		}
		if h := maxT - int64(r.AllowedLateness); seen && t < h {
			t = h
		}
		if !seen || t > maxT {
			maxT, seen = t, true
		}
		for i, a := range r.Aggregates {
			parts := []string{}
			for _, f := range a.PartitionBy {
				v, _ := lookup(ev.Row, f)
				parts = append(parts, canonical(v))
			}
			kb, _ := json.Marshal(parts)
			key := string(kb)
			contributes, num := a.Field == "", number{}
			if a.Field != "" {
				v, present := lookup(ev.Row, a.Field)
				if a.Fn == Count {
					contributes = present
				} else if present {
					num, contributes = toNumber(v)
				}
			}
			if contributes {
				hist = append(hist, refEntry{i, key, t, num})
			}
			var n, floats int64
			sum := new(big.Rat)
			var mn, mx number
			for _, e := range hist {
				if e.agg != i || e.key != key || e.t <= t-int64(a.Duration) || e.t > t {
					continue
				}
				n++
				if a.Fn == Count {
					continue
				}
				x := new(big.Rat)
				if e.v.isInt {
					x.SetInt64(e.v.i)
				} else {
					floats++
					x.SetFloat64(e.v.f)
				}
				sum.Add(sum, x)
				if n == 1 || cmpNumber(e.v, mn) < 0 {
					mn = e.v
				}
				if n == 1 || cmpNumber(e.v, mx) > 0 {
					mx = e.v
				}
			}
			var res any
			switch {
			case a.Fn == Count:
				res = intNumber(n).json()
			case n == 0:
			case a.Fn == Sum && floats == 0 && sum.Num().IsInt64():
				res = intNumber(sum.Num().Int64()).json()
			case a.Fn == Sum:
				f, _ := sum.Float64()
				res = doubleValue(f)
			case a.Fn == Avg:
				f, _ := sum.Quo(sum, new(big.Rat).SetInt64(n)).Float64()
				res = doubleValue(f)
			default:
				m := mx
				if a.Fn == Min {
					m = mn
				}
				if floats > 0 && m.isInt {
					m = floatNumber(float64(m.i))
				}
				res = m.json()
			}
			o[a.Output()] = res
		}
		out = append(out, o)
	}
	return texts(out)
}

func TestAggregateRestoreRefusesBadState(t *testing.T) {
	const ops = `[{"type":"Aggregate","on":"ts","aggregates":[{"fn":"sum","field":"v","duration":"1m"}]}]`
	p := mustPipeline(t, ops)
	p.Process(events(fmt.Sprintf(`{"ts":%q,"v":1}`, atS(1)), fmt.Sprintf(`{"ts":%q,"v":2}`, atS(2))))
	snap, _ := p.Snapshot()
	q := mustPipeline(t, ops)
	if err := q.Restore(snap); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]string{
		"agg out of range": strings.Replace(string(snap), `"agg":0`, `"agg":3`, 1),
		"bad value":        strings.Replace(string(snap), `"i1"`, `"x1"`, 1),
		"unordered":        strings.Replace(strings.Replace(string(snap), `"times":[`, `"times":[1767225700000000000,`, 1), `"values":[`, `"values":["i5",`, 1),
		"short values":     strings.Replace(string(snap), `"values":[`, `"values":["i5",`, 1),
		"stage":            strings.Replace(string(snap), `"rolling":[{"stage":0`, `"rolling":[{"stage":4`, 1),
	} {
		if err := q.Restore([]byte(bad)); !errors.Is(err, ErrSnapshotMismatch) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The good restore carried on exactly.
	if got := col(q.Process([]Event{{Row: row(fmt.Sprintf(`{"ts":%q,"v":4}`, atS(3))), Offset: 2}}), "SUM_v"); got != "7" {
		t.Fatalf("after restore SUM_v = %s", got)
	}
}
