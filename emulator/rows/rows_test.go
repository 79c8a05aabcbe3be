package rows

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestFromValue(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want Row
	}{
		{[]byte(`{"a":1,"b":2.5,"c":"x","d":{"e":[1,true]}}`), Row{"a": json.Number("1"), "b": json.Number("2.5"), "c": "x", "d": map[string]any{"e": []any{json.Number("1"), true}}}},
		{[]byte(` {"a":null} `), Row{"a": nil}},
		{[]byte(`[1,2]`), Row{"value": "[1,2]"}},
		{[]byte(`42`), Row{"value": "42"}},
		{[]byte(`plain text é`), Row{"value": "plain text é"}},
		{[]byte(`{"broken":`), Row{"value": `{"broken":`}},
		{[]byte(`{"a":1} {"b":2}`), Row{"value": `{"a":1} {"b":2}`}},
		{[]byte{0xff, 0x00}, Row{"value_base64": "/wA="}},
		{nil, Row{"value": nil}},
	} {
		if got := FromValue(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("FromValue(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}
