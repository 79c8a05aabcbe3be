package portal

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzParsePeek: any query either parses into a peek within its limits or
// is refused with InvalidInput; it never panics.
func FuzzParsePeek(f *testing.F) {
	f.Add("stream=s&from=offset&offset=3&partition=1&limit=10")
	f.Add("from=time&time=2026-01-02T15:04")
	f.Add("from=end&limit=0&partition=-1")
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		pq, err := parsePeek(q)
		var ae *apiError
		switch {
		case err == nil:
			if pq.Limit < 1 || pq.Limit > peekMax || pq.Offset < 0 || (pq.From != "end" && pq.From != "offset" && pq.From != "time") {
				t.Fatalf("accepted %q as %+v", raw, pq)
			}
		case !errors.As(err, &ae) || ae.Env.ErrorCode != "InvalidInput":
			t.Fatalf("refused %q with %v", raw, err)
		}
	})
}

// FuzzFormEvent: any send form gives an event whose JSON value is valid,
// or InvalidInput; it never panics.
func FuzzFormEvent(f *testing.F) {
	f.Add("json", `{"a":1}`, "k", "h: v")
	f.Add("text", "plain", "", "")
	f.Add("json", "{", "", "bad header")
	f.Fuzz(func(t *testing.T, kind, value, key, headers string) {
		form := url.Values{"kind": {kind}, "value": {value}, "key": {key}, "headers": {headers}}
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		ev, err := formEvent(r)
		var ae *apiError
		if err != nil {
			if !errors.As(err, &ae) || ae.Env.ErrorCode != "InvalidInput" {
				t.Fatalf("refused with %v", err)
			}
			return
		}
		if _, ok := ev["value"]; !ok {
			t.Fatalf("no value in %v", ev)
		}
	})
}
