package rows

import (
	"strings"
	"testing"
)

// FuzzCheckValue: the one-pass scan that lets most events skip decoding
// never lets through a value that the full check refuses, and FromValue
// and CheckValue never panic.
func FuzzCheckValue(f *testing.F) {
	for _, seed := range []string{
		`{"a":1}`, `{"A":1,"a":"s"}`, `{"":1," ":2}`, `{"\u0000":1}`, `{"a\\":1}`, `{"\"":{"b":[1,{"c":"\\"}]}}`,
		`{"é":1}`, "{\"\u0085\":1}", `{"x" : {"  ":1}}`, `{"s":"a:\"b\":"}`, `{"a":"x", "b" :"y"}`,
		strings.Repeat(`{"a":[`, 86) + "1" + strings.Repeat("]}", 86),
		strings.Repeat(`{"a":`, 256) + "1" + strings.Repeat("}", 256),
		strings.Repeat(`{"a":`, 33) + "1" + strings.Repeat("}", 33),
		`{"a":[{"b":[]}],"c":"]]]]"}`, `{"broken":`, "\xff{",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		r := FromValue(v)
		full := error(nil)
		if obj, ok := decodeObject(v); ok && len(v) > 0 {
			full = Check(obj)
			if len(r) != len(obj) {
				t.Fatalf("FromValue made %d fields of an object of %d", len(r), len(obj))
			}
		}
		if full != nil && quickPass(v) {
			t.Fatalf("quick scan passed %q, which the check refuses: %v", v, full)
		}
		_ = CheckValue(v)
	})
}
