package rows

// CSV events as a destination with inputSerialization Csv reads them
// (fabric-rest-api-specs eventstream/definitions/serialization.json:
// fieldDelimiter, format WithHeaders/WithoutHeaders, encoding UTF8;
// https://learn.microsoft.com/fabric/real-time-intelligence/event-streams/data-formats).

import (
	"errors"
	"reflect"
	"testing"
)

func TestDecodeCSV(t *testing.T) {
	cases := []struct {
		name  string
		f     Format
		value string
		want  []Row
	}{
		{"header and two lines", Format{Type: CSV}, "id,temp,city\n1,20.5,Oslo\n2,-3,\"Rio, BR\"\n",
			[]Row{{"id": "1", "temp": "20.5", "city": "Oslo"}, {"id": "2", "temp": "-3", "city": "Rio, BR"}}},
		{"semicolon, CRLF, BOM", Format{Type: CSV, Delimiter: ';'}, "\xef\xbb\xbfa;b\r\nx;y\r\n",
			[]Row{{"a": "x", "b": "y"}}},
		{"tab, no header", Format{Type: CSV, Delimiter: '\t', NoHeader: true}, "1\tz\n2\tw",
			[]Row{{"column1": "1", "column2": "z"}, {"column1": "2", "column2": "w"}}},
		{"header only", Format{Type: CSV}, "a,b\n", nil},
	}
	for _, c := range cases {
		got, err := c.f.Decode([]byte(c.value))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: rows %#v, want %#v", c.name, got, c.want)
		}
	}
}

func TestDecodeCSVRefuses(t *testing.T) {
	for name, v := range map[string][]byte{
		"ragged line":      []byte("a,b\n1,2,3\n"),
		"bare quote":       []byte("a,b\n1,\"x\n"),
		"not UTF-8":        []byte("a,b\n\xff,1\n"),
		"empty":            []byte(""),
		"repeated header":  []byte("a,a\n1,2\n"),
		"empty header":     []byte("a,\n1,2\n"),
		"tombstone (nil)":  nil,
		"only a BOM":       []byte("\xef\xbb\xbf"),
		"quote in bare fd": []byte("a\nx\"y\n"),
	} {
		rs, err := Format{Type: CSV}.Decode(v)
		var de *DecodeError
		if !errors.As(err, &de) || de.Format != CSV {
			t.Errorf("%s: rows %v, error %v; want a CSV DecodeError", name, rs, err)
		}
	}
}

func TestDecodeJSONFormatKeepsFromValue(t *testing.T) {
	for _, v := range []string{`{"a":1}`, `[1]`, "text", "\xff"} {
		got, err := Format{}.Decode([]byte(v))
		if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], FromValue([]byte(v))) {
			t.Errorf("%q: %v, %v; want FromValue's one row", v, got, err)
		}
	}
}
