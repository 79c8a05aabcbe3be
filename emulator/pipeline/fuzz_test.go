package pipeline

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// FuzzScalarFunctions calls every function with string, number and null
// arguments built from the input, some of them as long as an event may be:
// no call panics, and no string result is larger than rows.MaxEventBytes
// (issue 13, finding 2: a function may not multiply its input past it).
func FuzzScalarFunctions(f *testing.F) {
	f.Add("aaaa", "a", "bbbb", int64(3), int64(2), uint16(1000))
	f.Add("a", "a", strings.Repeat("b", 4000), int64(-1), int64(1), uint16(500)) // the Replace, scaled
	f.Add("ɐ", "", "x", int64(1<<62), int64(-1<<63), uint16(60000))
	f.Add("😀b", "😀", "", int64(0), int64(400), uint16(0))
	f.Add("123.9995", "ß", "ﬃ", int64(-401), int64(9), uint16(7))
	f.Add(strings.Repeat("\xab", 20), "0", "0", int64(1), int64(2_000_000), uint16(60000)) // bytes that are not UTF-8, as long as an event: Substring kept them as bytes
	fns := make([]ScalarFunc, 0, len(scalarFuncs))
	for fn := range scalarFuncs {
		fns = append(fns, fn)
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i] < fns[j] })
	f.Fuzz(func(t *testing.T, a, b, c string, n, m int64, rep uint16) {
		if len(a)*int(rep) > rows.MaxEventBytes {
			rep = uint16(rows.MaxEventBytes / max(len(a), 1))
		}
		long := strings.Repeat(a, int(rep))
		values := []any{a, b, c, long, nil, json.Number(fmtInt(n)), json.Number(fmtInt(m)), json.Number(b), true}
		for _, fn := range fns {
			sig := scalarFuncs[fn]
			for _, args := range argSets(values) {
				if len(args) < len(sig.params)-sig.optional || len(args) > len(sig.params) && !sig.variadic {
					continue // Parse refuses the call
				}
				v, ok := callScalar(fn, args)
				if s, isStr := v.(string); isStr && len(s) > rows.MaxEventBytes {
					t.Fatalf("%s gave a %d-byte string", fn, len(s))
				}
				if !ok && v != nil {
					t.Fatalf("%s failed with a value %v", fn, v)
				}
			}
		}
	})
}

// argSets is every list of one to three values drawn from a few positions
// of values, enough to reach each function's signature.
func argSets(values []any) [][]any {
	var out [][]any
	for i := range values {
		out = append(out, []any{values[i]})
		for j := range values {
			out = append(out, []any{values[i], values[j]})
			for _, k := range []int{0, 2, 3, 5, 6} {
				out = append(out, []any{values[i], values[j], values[k]})
			}
		}
	}
	return out
}

func fmtInt(i int64) string { b, _ := json.Marshal(i); return string(b) }

// FuzzOperators runs operator chains over rows made from arbitrary record
// values: Parse refuses or accepts the chain, and an accepted chain never
// panics on any row, windows included, and makes no field value larger than
// an event may be.
func FuzzOperators(f *testing.F) {
	chains := []string{
		`[{"type":"Filter","condition":{"or":[{"field":"s","op":"contains","value":"a"},{"not":{"field":"n","op":"gt","value":2}}]}}]`,
		`[{"type":"ManageFields","drop":["x"],"rename":{"s":"t"},"cast":{"n":"double","ts":"timestamp","b":"boolean","l":"long","s":"string"}}]`,
		`[{"type":"ManageFields","compute":[{"fn":"Replace","args":[{"field":"s"},{"literal":"a"},{"field":"r"}],"as":"out"},{"fn":"Concat","args":[{"field":"s"},{"field":"r"},{"field":"s"}],"as":"c"},{"fn":"Upper","args":[{"field":"s"}],"as":"u"},{"fn":"Substring","args":[{"field":"s"},{"field":"n"},{"literal":3}],"as":"sub"},{"fn":"Round","args":[{"field":"n"},{"field":"l"}],"as":"rd"},{"fn":"CharIndex","args":[{"field":"r"},{"field":"s"},{"field":"n"}],"as":"ci"},{"fn":"Power","args":[{"field":"n"},{"field":"l"}],"as":"p"}]}]`,
		`[{"type":"GroupBy","keys":["s","o.k"],"aggregates":[{"fn":"count","as":"n"},{"fn":"avg","field":"n"},{"fn":"min","field":"l"},{"fn":"max","field":"s"},{"fn":"sum","field":"n"}],"window":{"kind":"tumbling","duration":"1m","on":"ts","allowedLateness":"5s"}}]`,
		`[{"type":"GroupBy","keys":["s"],"aggregates":[{"fn":"count","as":"n"}],"window":{"kind":"hopping","duration":"1m","hop":"10s"}}]`,
		`{"type":"Aggregate","aggregates":[{"fn":"avg","field":"n","as":"a","partitionBy":["s"],"duration":"5m"},{"fn":"max","field":"l","duration":"1s"}]}`,
		`[{"type":"Window","kind":"tumbling","duration":"1s","on":"ts"},{"type":"GroupBy","keys":["_window_start"],"aggregates":[{"fn":"count","as":"n"}]}]`,
	}
	for _, ops := range chains {
		f.Add(ops, []byte(`{"s":"banana","r":"xyz","n":2,"l":3,"ts":"2026-01-01T00:00:10Z","o":{"k":"v"}}`), []byte(`{"s":"aaaa","r":"`+strings.Repeat("b", 400)+`","n":1e308,"l":-9223372036854775808,"ts":1767225600000}`))
	}
	f.Add(`[{"type":"ManageFields","rename":{"a":"b"}}]`, []byte(strings.Repeat(`{"a":[`, 86)+"1"+strings.Repeat("]}", 86)), []byte(`{"A":1,"a":"s","":1," ":2,"\u0000":3}`))
	f.Add(`[{"type":"Filter","condition":{"field":"a.a.a","op":"exists"}}]`, []byte(strings.Repeat(`{"a":`, 256)+"1"+strings.Repeat("}", 256)), []byte("\xff\x00"))
	f.Fuzz(func(t *testing.T, ops string, v1, v2 []byte) {
		parsed, err := Parse([]byte(ops))
		if err != nil {
			// A chain Parse refuses says nothing more: run the rows
			// through a known chain instead, picked by the text.
			parsed, err = Parse([]byte(chains[len(ops)%len(chains)]))
			if err != nil {
				t.Fatalf("seed chain: %v", err)
			}
		}
		p, err := New(parsed)
		if err != nil {
			return
		}
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		evs := []Event{
			{Row: rows.FromValue(v1), Timestamp: t0, Offset: 0},
			{Row: rows.FromValue(v2), Timestamp: t0.Add(time.Minute), Partition: 1, Offset: 0},
			{Row: rows.FromValue(v1), Timestamp: t0.Add(time.Hour), Offset: 1},
		}
		out := p.Process(evs)
		out = append(out, p.Advance(t0.Add(48*time.Hour))...)
		for _, r := range out {
			for k, v := range r {
				if s, ok := v.(string); ok && len(s) > rows.MaxEventBytes {
					t.Fatalf("field %q is %d bytes", k, len(s))
				}
			}
		}
		if _, err := p.Snapshot(); err != nil {
			t.Fatalf("snapshot: %v", err)
		}
	})
}
