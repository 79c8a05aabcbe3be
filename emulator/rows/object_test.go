package rows

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// objectSeeds are texts around every turn of the quick scanners: the
// answers must be encoding/json's.
var objectSeeds = []string{
	`{}`, ` { } `, "\t{\"a\":1}\r\n", `{"a":1}`, `{"a":-0.5e+3,"b":[true,false,null,"x",{}],"c":{"d":[]}}`,
	`{"a":"\u00e9"}`, `{"a\"b":1}`, `{"é":"ü"}`, "{\"a\":\"\xff\"}", "{\"a\":\"\x01\"}",
	`{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":1e}`, `{"a":tru}`, `{"a":nul}`, `{"a":1,}`, `{,}`, `{"a"}`,
	`{"a":1}}`, `{"a":1} x`, `{"a":[1,]}`, `{"a":[,1]}`, `{"a":[1 2]}`, `{"a" 1}`, `{1:1}`, `{"a":`,
	`[]`, `"s"`, `1`, ``, ` `, `{`, `}`, `nul`,
	strings.Repeat(`{"a":[`, 40) + "1" + strings.Repeat("]}", 40),
	strings.Repeat(`{"a":`, 300) + "1" + strings.Repeat("}", 300),
	strings.Repeat(`{"a":`, 300) + "1" + strings.Repeat("}", 299),
}

// isObjectStd is IsObject's definition, in encoding/json's terms.
func isObjectStd(v []byte) bool {
	t := bytes.TrimLeft(v, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && json.Valid(v)
}

func TestIsObjectAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range objectSeeds {
		if got, want := IsObject([]byte(s)), isObjectStd([]byte(s)); got != want {
			t.Errorf("IsObject(%.60q) = %v, encoding/json says %v", s, got, want)
		}
	}
}

// TestIsObjectReadsCommonTextItself: the quick scanners settle an event
// of plain strings, numbers and shallow nesting without encoding/json.
func TestIsObjectReadsCommonTextItself(t *testing.T) {
	v := []byte(`{"device":"d42","seq":123456,"temp":-12.5e1,"ok":true,"tags":["a",null],"at":{"x":0}}`)
	if end, ok := quickValue(v, 0, 0); !ok || end != len(v) {
		t.Fatalf("quickValue = %d, %v; want %d, true", end, ok, len(v))
	}
}

func FuzzIsObject(f *testing.F) {
	for _, s := range objectSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if got, want := IsObject(v), isObjectStd(v); got != want {
			t.Fatalf("IsObject(%q) = %v, encoding/json says %v", v, got, want)
		}
	})
}

func BenchmarkIsObject(b *testing.B) {
	v := []byte(`{"device":"d42","seq":123456,"temp":12.5}`)
	b.Run("quick", func(b *testing.B) {
		for range b.N {
			IsObject(v)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for range b.N {
			json.Valid(v)
		}
	})
}
