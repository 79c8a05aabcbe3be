package emulator_test

import (
	"regexp"
	"strings"
	"testing"
)

// goTypeWords are spellings only Go's reflection would put in a message.
var goTypeWords = regexp.MustCompile(`struct \{|RawMessage|map\[|\[\]|\*\w|int64|int32|float64|uint|interface|api\.|json: |Go value`)

// Malformed bodies are explained in the API's terms: the field, the JSON
// type it takes and the type sent, never Go's names for them.
func TestDecodeErrorsSpeakJSON(t *testing.T) {
	e := startEnv(t)
	s := newStream(e)
	cases := []struct {
		name, method, path, body string
		want                     []string // substrings of the message
	}{
		{"events not an array", "POST", s.produce, `{"events": {}}`, []string{"events", "array", "object"}},
		{"events a number", "POST", s.produce, `{"events": 1e999}`, []string{"events", "array", "number"}},
		{"body an array", "POST", s.produce, `[1,2]`, []string{"object", "array"}},
		{"body a string", "POST", s.produce, `"x"`, []string{"object", "string"}},
		{"event a string", "POST", s.produce, `{"events": ["x"]}`, []string{"events[0]", "object", "string"}},
		{"headers a number", "POST", s.produce, `{"events": [{"value": 1, "headers": 5}]}`, []string{"events[0].headers", "number"}},
		{"headers list of arrays", "POST", s.produce, `{"events": [{"value": 1, "headers": [[1, 2]]}]}`, []string{"events[0].headers", "object", "array"}},
		{"header key a number", "POST", s.produce, `{"events": [{"value": 1, "headers": [{"key": 1}]}]}`, []string{"events[0].headers", "key", "string", "number"}},
		{"valueBase64 a number", "POST", s.produce, `{"events": [{"valueBase64": 5}]}`, []string{"events[0].valueBase64", "string", "number"}},
		{"bad JSON", "POST", s.produce, `{"events": [}`, []string{"not valid JSON", "byte"}},
		{"displayName a number", "POST", "/v1/workspaces", `{"displayName": 5}`, []string{"displayName", "string", "number"}},
		{"displayName an object", "POST", "/v1/workspaces/" + s.ws + "/items", `{"displayName": {}, "type": "Lakehouse"}`, []string{"displayName", "string", "object"}},
		{"principal a string", "POST", "/v1/workspaces/" + s.ws + "/roleAssignments", `{"principal": "x", "role": "Admin"}`, []string{"principal", "object", "string"}},
		{"role a bool", "POST", "/v1/workspaces/" + s.ws + "/roleAssignments", `{"principal": {"id": "x", "type": "User"}, "role": true}`, []string{"role", "string", "boolean"}},
		{"destination type an array", "POST", "/v1/workspaces/" + s.ws + "/eventstreams/" + s.id + "/destinations", `{"type": [], "itemId": "x"}`, []string{"type", "string", "array"}},
		{"token expiresIn a string", "POST", "/_emulator/token", `{"expiresIn": "soon"}`, []string{"expiresIn", "number", "string"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.call(c.method, c.path, c.body)
			e.wantError(r, 400, r.code())
			msg := string(r.Raw)
			if loc := goTypeWords.FindString(msg); loc != "" {
				t.Errorf("%s %s %s: the answer speaks Go (%q): %s", c.method, c.path, c.body, loc, msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%s: the answer does not say %q: %s", c.body, w, msg)
				}
			}
		})
	}
}
