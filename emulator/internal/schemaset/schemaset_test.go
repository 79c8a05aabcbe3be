package schemaset

// The emulator's reading of EventSchemaSetV1.json, with Fabric's
// documented limits (https://learn.microsoft.com/fabric/real-time-intelligence/schema-sets/schema-registry-limitations).

import (
	"encoding/base64"
	"strings"
	"testing"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

const rec = `{"type":"record","name":"R","fields":[{"name":"a","type":"long"}]}`
const rec2 = `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":["null","string"],"default":null}]}`

func TestDecodeAndFind(t *testing.T) {
	s, err := Decode(b64(`{"schemas":[{"name":"Reading","versions":[{"version":1,"schema":` + rec + `},{"version":2,"schema":` + rec2 + `}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Find("reading", 1); err != nil || got != rec {
		t.Fatalf("version 1: %q, %v", got, err)
	}
	if got, err := s.Find("Reading", 0); err != nil || got != rec2 {
		t.Fatalf("latest: %q, %v", got, err)
	}
	if _, err := s.Find("Reading", 3); err == nil || !strings.Contains(err.Error(), "no version 3") {
		t.Fatalf("version 3: %v", err)
	}
	if _, err := s.Find("Other", 0); err == nil || !strings.Contains(err.Error(), `no schema "Other"`) {
		t.Fatalf("unknown schema: %v", err)
	}
}

func TestDecodeRefuses(t *testing.T) {
	long := strings.Repeat("n", 51)
	for want, payload := range map[string]string{
		"not base64":             "%%%",
		"unexpected end of JSON": b64(`{`),
		"needs a name":           b64(`{"schemas":[{"name":"","versions":[{"version":1,"schema":` + rec + `}]}]}`),
		"over 50 characters":     b64(`{"schemas":[{"name":"` + long + `","versions":[{"version":1,"schema":` + rec + `}]}]}`),
		"has no version":         b64(`{"schemas":[{"name":"a","versions":[]}]}`),
		"not a new number":       b64(`{"schemas":[{"name":"a","versions":[{"version":1,"schema":` + rec + `},{"version":1,"schema":` + rec + `}]}]}`),
		"parse Avro schema":      b64(`{"schemas":[{"name":"a","versions":[{"version":1,"schema":{"type":"nope"}}]}]}`),
		`the name "A" is taken`:  b64(`{"schemas":[{"name":"a","versions":[{"version":1,"schema":` + rec + `}]},{"name":"A","versions":[{"version":1,"schema":` + rec + `}]}]}`),
	} {
		if _, err := Decode(payload); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want an error saying %q, got %v", want, err)
		}
	}
}
