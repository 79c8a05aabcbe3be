package control

import (
	"strings"
	"testing"
)

// FuzzConnectionFields: any text reads without a panic, and each field
// read is trimmed text of the input that holds no separator.
func FuzzConnectionFields(f *testing.F) {
	f.Add("Endpoint=sb://h:9093/;SharedAccessKeyName=key_1;SharedAccessKey=abc=;EntityPath=es.ds")
	f.Add(";;=;SHAREDACCESSKEY = x ; entitypath=")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		name, key, entity := connectionFields(s)
		for _, v := range []string{name, key, entity} {
			if strings.Contains(v, ";") || v != strings.TrimSpace(v) || !strings.Contains(s, v) {
				t.Fatalf("field %q of %q", v, s)
			}
		}
	})
}
