package rows

// Package rows' rules (emulator/rows doc: numbers keep their JSON text as
// json.Number) for event values that become Lakehouse rows
// (https://learn.microsoft.com/fabric/real-time-intelligence/event-streams/add-destination-lakehouse):
// decodePlain must decode exactly as go-json does, or leave the value to it.

import (
	"bytes"
	"reflect"
	"testing"

	gojson "github.com/goccy/go-json"
)

var plainSeeds = []string{
	`{"deviceId":"sensor-0001","seq":1,"temperature":18.01,"humidity":40.1,"status":"ok","ts":1700000000000}`,
	` { "a" : [ 1 , -0 , 2.5e-3 , 1E+9 , true , false , null , { } , [ ] ] , "é" : "ü" } `,
	`{"n":{"m":{"o":[[[{"p":9007199254740993}]]]}}}`, `{}`,
	`{"a":"x\"y"}`, `{"a":1,"a":2}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":tru}`,
	`{"a":1,}`, `{"a":1} x`, `{"a":"` + "\xff" + `"}`, `{"a":"` + "\x01" + `"}`, `[1]`, `{"a" 1}`,
}

// goJSON is decodeObject's other way, for comparison.
func goJSON(b []byte) (map[string]any, bool) {
	dec := gojson.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || dec.More() {
		return nil, false
	}
	return obj, true
}

func FuzzDecodePlain(f *testing.F) {
	for _, s := range plainSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		row, ok := decodePlain(b)
		if !ok {
			return
		}
		want, wok := goJSON(b)
		if !wok || !reflect.DeepEqual(map[string]any(row), want) {
			t.Fatalf("%q: decodePlain %#v, go-json %#v (ok %v)", b, row, want, wok)
		}
	})
}

func TestDecodePlainTakesPlainObjects(t *testing.T) {
	for i, s := range plainSeeds {
		_, ok := decodePlain([]byte(s))
		if want := i < 4; ok != want {
			t.Errorf("decodePlain(%q) ok %v, want %v", s, ok, want)
		}
	}
}

func BenchmarkFromValue(b *testing.B) {
	v := []byte(`{"orderId":"o-000123","customer":{"id":42,"tier":"gold"},"items":[{"sku":"A-1","qty":2},{"sku":"B-7","qty":1}],"amount":12.5,"ts":"2026-11-30T17:00:00Z"}`)
	for _, c := range []struct {
		name string
		fn   func([]byte) bool
	}{
		{"plain", func(b []byte) bool { _, ok := decodePlain(b); return ok }},
		{"go-json", func(b []byte) bool { _, ok := goJSON(b); return ok }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(v)))
			for b.Loop() {
				if !c.fn(v) {
					b.Fatal("refused")
				}
			}
		})
	}
}
