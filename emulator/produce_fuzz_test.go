package emulator_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fabrictest/fabrictest/emulator"
)

// produceSeeds are the hostile bodies of issue 13 and their kin.
func produceSeeds() []string {
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	return []string{
		`{"events": [{"value": {"a": 1}}]}`,
		`{"events": [{"value": ` + deep("[", "]", 256) + `}]}`,
		`{"events": [{"value": ` + deep(`{"a":[`, "]}", 86) + `}]}`,
		`{"events": [{"value": ` + deep(`{"a":`, "}", 50) + `}]}`,
		deep("[", "]", 10_001), // past encoding/json's depth limit of 10,000
		`{"events": [{"value": {"\u0000": 1}}]}`,
		`{"events": [{"value": {"A": 1, "a": "s"}}]}`,
		`{"events": [{"value": {"": 1, " ": 2}}]}`,
		"{\"events\": [{\"value\": \"\xff\xfe\xc3\x28\"}]}",
		"{\"ev\xffents\": []}",
		`{"events": [{"value": 1e999999}]}`,
		`{"events": [{"value": -1e-999999, "key": 123456789012345678901234567890}]}`,
		`{"events": [{"value": 1, "timestamp": 1e300}]}`,
		`{"events": [{"value": 1, "timestamp": "not a time"}]}`,
		`{"events": [{"value": 1, "headers": {"h": 5}}]}`,
		`{"events": [{"value": 1, "headers": [[1, 2]]}]}`,
		`{"events": [{"valueBase64": "!!!"}]}`,
		`{"events": [{"value": 1, "valueBase64": "AA=="}]}`,
		`{"events": {}}`, `{"events": null}`, `{"events": []}`, `{"events": [null]}`, `{"events": ["x"]}`,
		`{"events": [{}]}`, `{"events": [{"value": 1}], "extra": 1}`, `{"events": [{"value": 1}]} {"again": 1}`,
		`[]`, `"x"`, `null`, `1`, ``, ` `, `{`, `{"events": [`, "\x00", "\ufeff{}",
	}
}

// FuzzProduceBody feeds arbitrary bytes to the Custom HTTP produce route:
// no panic, no 5xx but for the broker's own failure, and every refusal in
// Fabric's JSON envelope.
func FuzzProduceBody(f *testing.F) {
	for _, s := range produceSeeds() {
		f.Add([]byte(s))
	}
	e := startEnv(f, emulator.WithPartitions(1))
	s := newStream(e)
	h := e.srv.Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", s.produce, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+e.token)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		checkProduceAnswer(t, rec, body)
	})
}

func checkProduceAnswer(t *testing.T, rec *httptest.ResponseRecorder, body []byte) {
	t.Helper()
	var env struct {
		ErrorCode, Message, RequestID string
		Produced                      int
	}
	raw := rec.Body.Bytes()
	if err := json.Unmarshal(raw, &env); err != nil || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("body %.200q answered %d %q, not JSON: %.300s", body, rec.Code, rec.Header().Get("Content-Type"), raw)
	}
	if !utf8.Valid(raw) {
		t.Fatalf("body %.200q: the answer is not UTF-8: %.300q", body, raw)
	}
	switch {
	case rec.Code == http.StatusOK:
		if env.Produced < 1 {
			t.Fatalf("body %.200q: 200 without events: %.300s", body, raw)
		}
	case rec.Code == http.StatusBadGateway && env.ErrorCode == "KafkaUnavailable":
		// the broker's own failure, the only 5xx allowed
	case rec.Code >= 500:
		t.Fatalf("body %.200q answered %d: %.300s", body, rec.Code, raw)
	case rec.Code >= 400:
		if env.ErrorCode == "" || env.Message == "" || env.RequestID == "" || rec.Header().Get("x-ms-public-api-error-code") != env.ErrorCode {
			t.Fatalf("body %.200q: %d without Fabric's envelope: %.300s", body, rec.Code, raw)
		}
	default:
		t.Fatalf("body %.200q answered %d: %.300s", body, rec.Code, raw)
	}
}
