package pipeline

import (
	"encoding/json"
	"testing"
)

func TestFilterRules(t *testing.T) {
	r := row(`{"n": 5, "f": 2.5, "big": 9007199254740993, "s": "abc", "num_s": "5", "b": true, "z": null,
		"arr": [1, "x", 2.0, true], "obj": {"k": "v", "n": 3}, "a.b": "literal",
		"ts": "2026-01-01T01:00:00+01:00", "ts_ms": 1767225600000, "empty": ""}`)
	for _, tc := range []struct {
		cond string
		want bool
	}{
		// numbers, numerically, across representations
		{`{"field":"n","op":"eq","value":5}`, true},
		{`{"field":"n","op":"eq","value":5.0}`, true},
		{`{"field":"n","op":"eq","value":5e0}`, true},
		{`{"field":"n","op":"ne","value":4}`, true},
		{`{"field":"n","op":"gt","value":4.99}`, true},
		{`{"field":"n","op":"gte","value":5}`, true},
		{`{"field":"n","op":"lt","value":5}`, false},
		{`{"field":"n","op":"lte","value":5}`, true},
		{`{"field":"f","op":"lt","value":3}`, true},
		{`{"field":"f","op":"gt","value":2}`, true},
		{`{"field":"big","op":"gt","value":9007199254740992}`, true}, // exact beyond 2^53
		{`{"field":"big","op":"eq","value":9007199254740992.0}`, false},
		// strings, byte order
		{`{"field":"s","op":"eq","value":"abc"}`, true},
		{`{"field":"s","op":"gt","value":"abb"}`, true},
		{`{"field":"s","op":"lt","value":"abd"}`, true},
		{`{"field":"s","op":"lt","value":"B"}`, false},     // 'a' > 'B' in byte order
		{`{"field":"num_s","op":"gt","value":"10"}`, true}, // "5" > "10" as strings
		{`{"field":"empty","op":"eq","value":""}`, true},
		// type mismatch fails eq and ne alike
		{`{"field":"num_s","op":"eq","value":5}`, false},
		{`{"field":"num_s","op":"ne","value":5}`, false},
		{`{"field":"n","op":"eq","value":"5"}`, false},
		{`{"field":"n","op":"gt","value":"1"}`, false},
		{`{"field":"b","op":"eq","value":1}`, false},
		{`{"field":"obj","op":"eq","value":"v"}`, false},
		{`{"field":"obj","op":"ne","value":"v"}`, false},
		{`{"not":{"field":"num_s","op":"eq","value":5}}`, true},
		// booleans by eq/ne only
		{`{"field":"b","op":"eq","value":true}`, true},
		{`{"field":"b","op":"ne","value":false}`, true},
		{`{"field":"b","op":"eq","value":false}`, false},
		// missing and null: everything fails but exists / eq null / ne null
		{`{"field":"missing","op":"eq","value":1}`, false},
		{`{"field":"missing","op":"ne","value":1}`, false},
		{`{"field":"missing","op":"lt","value":1}`, false},
		{`{"field":"missing","op":"contains","value":"a"}`, false},
		{`{"field":"z","op":"ne","value":1}`, false},
		{`{"field":"z","op":"eq","value":"x"}`, false},
		{`{"field":"missing","op":"eq","value":null}`, true},
		{`{"field":"z","op":"eq","value":null}`, true},
		{`{"field":"z","op":"ne","value":null}`, false},
		{`{"field":"n","op":"eq","value":null}`, false},
		{`{"field":"n","op":"ne","value":null}`, true},
		{`{"field":"missing","op":"exists"}`, false},
		{`{"field":"z","op":"exists"}`, false},
		{`{"field":"n","op":"exists"}`, true},
		{`{"field":"z","op":"exists","value":false}`, true},
		{`{"field":"n","op":"IsNull"}`, false},
		{`{"field":"missing","op":"IsNull"}`, true},
		{`{"field":"empty","op":"IsNotNullOrEmpty"}`, false},
		{`{"field":"s","op":"IsNotNullOrEmpty"}`, true},
		{`{"field":"empty","op":"IsEmpty"}`, true},
		// contains: substring on strings, element equality on arrays
		{`{"field":"s","op":"contains","value":"bc"}`, true},
		{`{"field":"s","op":"contains","value":"x"}`, false},
		{`{"field":"s","op":"DoesNotContain","value":"x"}`, true},
		{`{"field":"arr","op":"contains","value":2}`, true}, // 2.0 equals 2
		{`{"field":"arr","op":"contains","value":"x"}`, true},
		{`{"field":"arr","op":"contains","value":true}`, true},
		{`{"field":"arr","op":"contains","value":"1"}`, false},
		{`{"field":"n","op":"contains","value":5}`, false},
		{`{"field":"obj","op":"contains","value":"k"}`, false},
		{`{"field":"s","op":"startsWith","value":"ab"}`, true},
		{`{"field":"s","op":"endsWith","value":"bc"}`, true},
		{`{"field":"s","op":"DoesNotEndWith","value":"bc"}`, false},
		{`{"field":"n","op":"startsWith","value":"5"}`, false},
		// nested paths; a top-level key with a dot wins
		{`{"field":"obj.k","op":"eq","value":"v"}`, true},
		{`{"field":"obj.n","op":"gt","value":2}`, true},
		{`{"field":"obj.missing","op":"exists"}`, false},
		{`{"field":"s.x","op":"exists"}`, false},
		{`{"field":"a.b","op":"eq","value":"literal"}`, true},
		// timestamps: instants when both sides are RFC 3339, else strings
		{`{"field":"ts","op":"eq","value":"2026-01-01T00:00:00Z"}`, true},
		{`{"field":"ts","op":"eq","value":"2026-01-01T00:00:00.000Z"}`, true},
		{`{"field":"ts","op":"lt","value":"2026-01-01T00:30:00Z"}`, true},
		{`{"field":"ts","op":"gt","value":"2026-01-01T00:00:00Z"}`, false},
		{`{"field":"ts","op":"gt","value":"2026"}`, true},                     // not a timestamp: byte order
		{`{"field":"ts_ms","op":"gt","value":"2025-01-01T00:00:00Z"}`, false}, // number vs string
		// combinators
		{`{"and":[{"field":"n","op":"gt","value":1},{"field":"s","op":"eq","value":"abc"}]}`, true},
		{`{"and":[{"field":"n","op":"gt","value":1},{"field":"s","op":"eq","value":"x"}]}`, false},
		{`{"or":[{"field":"n","op":"gt","value":10},{"field":"s","op":"eq","value":"abc"}]}`, true},
		{`{"or":[{"field":"n","op":"gt","value":10},{"field":"missing","op":"exists"}]}`, false},
		{`{"not":{"field":"missing","op":"exists"}}`, true},
	} {
		ops := mustParse(t, `{"type":"Filter","condition":`+tc.cond+`}`)
		c := compile(ops[0].(Filter).Condition)
		if got := c.match(r); got != tc.want {
			t.Errorf("%s = %v, want %v", tc.cond, got, tc.want)
		}
	}
}

func TestFilterGoValues(t *testing.T) {
	// Rows built in Go (not from JSON) compare by the same rules.
	r := map[string]any{"i": 3, "i64": int64(3), "u": uint8(3), "f": 3.0, "f32": float32(2.5), "nan": nan()}
	for _, tc := range []struct {
		c    Condition
		want bool
	}{
		{Condition{Field: "i", Op: OpEq, Value: json.Number("3")}, true},
		{Condition{Field: "i64", Op: OpEq, Value: 3.0}, true},
		{Condition{Field: "u", Op: OpGte, Value: 3}, true},
		{Condition{Field: "f", Op: OpEq, Value: int64(3)}, true},
		{Condition{Field: "f32", Op: OpLt, Value: 3}, true},
		{Condition{Field: "nan", Op: OpEq, Value: 1}, false},
		{Condition{Field: "nan", Op: OpNe, Value: 1}, false},
	} {
		p, err := New([]Operator{Filter{Condition: tc.c}})
		if err != nil {
			t.Fatal(err)
		}
		got := len(p.Process([]Event{{Row: r, Offset: -1}})) == 1
		if got != tc.want {
			t.Errorf("%+v = %v, want %v", tc.c, got, tc.want)
		}
	}
}

func TestFilterDropsAreCounted(t *testing.T) {
	p := mustPipeline(t, `[{"type":"Filter","condition":{"field":"ok","op":"eq","value":true}}]`)
	out := p.Process(events(`{"ok":true,"i":1}`, `{"ok":false}`, `not json`, `{"ok":"true"}`, `{"ok":true,"i":2}`))
	if got := texts(out); !equalTexts(got, []string{`{"i":1,"ok":true}`, `{"i":2,"ok":true}`}) {
		t.Fatalf("out = %v", got)
	}
	if s := p.Stats(); s.Filtered != 3 || s.Events != 5 || s.Rows != 2 {
		t.Fatalf("stats = %+v", s)
	}
}
