package fabrictest

// Gomega matchers for what the harness returns. Each one is built with
// gcustom.MakeMatcher on a typed input (so a wrong actual is reported, not
// mis-matched), works inside Eventually, and prints what it found when it
// fails. Matchers for a destination (Lakehouse/Delta, Eventhouse) live in a
// file of their own, matchers_<destination>.go, built the same way with
// newTemplate for the message.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"text/template"

	"github.com/onsi/gomega/format"
	"github.com/onsi/gomega/gcustom"
	"github.com/onsi/gomega/types"
)

// newTemplate parses a failure-message template with gcustom's data
// ({{.Actual}}, {{.Data}}, {{.To}}, {{.Failure}}) and these functions:
// format (gomega's formatting), records (a record summary), show (bytes
// shown as text, JSON or base64), indent, plus those of extra.
func newTemplate(text string, extra ...template.FuncMap) *template.Template {
	t := template.New("fabrictest").Funcs(template.FuncMap{
		"format":  func(v any) string { return format.Object(v, 1) },
		"records": func(v any) string { return summarize(asRecords(v), "    ") },
		"show":    showBytes,
		"indent": func(s string) string {
			return "    " + strings.ReplaceAll(s, "\n", "\n    ")
		},
	})
	for _, f := range extra {
		t = t.Funcs(f)
	}
	return template.Must(t.Parse(text))
}

func asRecords(v any) []Record {
	switch rs := v.(type) {
	case Records:
		return rs
	case []Record:
		return rs
	}
	return nil
}

// HaveRecordCount succeeds when the actual records (Records or []Record,
// as Consume, Records and their Try… forms return) number exactly n. On
// failure it lists the records it found.
//
//	Eventually(es.TryRecords).Should(fabrictest.HaveRecordCount(3))
func HaveRecordCount(n int) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(rs []Record) (bool, error) {
		return len(rs) == n, nil
	}).WithPrecompiledTemplate(newTemplate(
		"Expected {{if .Failure}}{{.Data}}{{else}}anything but {{.Data}}{{end}} record(s), found {{len .Actual}}:\n{{records .Actual}}"), n)
}

// HaveRecordsWithValues succeeds when the values of the actual records are
// exactly the given ones, in any order (a multiset: repeats count). A string
// or []byte is compared byte for byte; a json.RawMessage or any other value
// is compared as JSON (so map[string]any{"id": 1} matches {"id":1} whatever
// the key order or spacing); nil matches a tombstone. On failure it lists the
// values missing, those not expected, and the records found.
func HaveRecordsWithValues(values ...any) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(rs []Record) (bool, error) {
		missing, extra, err := compareValues(rs, values)
		if err != nil {
			return false, err
		}
		return len(missing) == 0 && len(extra) == 0, nil
	}).WithPrecompiledTemplate(newTemplate(`Expected record values {{if .Failure}}{{else}}not {{end}}to be exactly (in any order):
{{range .Data}}    {{.}}
{{end}}{{$d := diff .Actual}}{{if .Failure}}{{if $d.Missing}}missing:
{{range $d.Missing}}    {{.}}
{{end}}{{end}}{{if $d.Extra}}not expected:
{{range $d.Extra}}    {{.}}
{{end}}{{end}}{{end}}found:
{{records .Actual}}`, template.FuncMap{
		"diff": func(actual any) valueDiff {
			missing, extra, _ := compareValues(asRecords(actual), values)
			return valueDiff{Missing: missing, Extra: extra}
		},
	}), describeValues(values))
}

type valueDiff struct{ Missing, Extra []string }

// expectedValue is one wanted value: exact bytes, or JSON to compare
// semantically.
type expectedValue struct {
	raw    []byte
	isJSON bool
	null   bool
	text   string
}

func toExpected(v any) (expectedValue, error) {
	switch x := v.(type) {
	case nil:
		return expectedValue{null: true, text: "<null>"}, nil
	case string:
		return expectedValue{raw: []byte(x), text: strconv.Quote(x)}, nil
	case []byte:
		if x == nil {
			return expectedValue{null: true, text: "<null>"}, nil
		}
		return expectedValue{raw: x, text: showBytes(x)}, nil
	case json.RawMessage:
		if !json.Valid(x) {
			return expectedValue{}, fmt.Errorf("HaveRecordsWithValues: json.RawMessage %s is not valid JSON", snippet(x))
		}
		return expectedValue{raw: x, isJSON: true, text: string(x)}, nil
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return expectedValue{}, fmt.Errorf("HaveRecordsWithValues: %w", err)
		}
		return expectedValue{raw: b, isJSON: true, text: string(b)}, nil
	}
}

func (e expectedValue) matches(value []byte) bool {
	switch {
	case e.null:
		return value == nil
	case value == nil:
		return false
	case !e.isJSON:
		return bytes.Equal(e.raw, value)
	}
	var want, got any
	if json.Unmarshal(e.raw, &want) != nil || json.Unmarshal(value, &got) != nil {
		return false
	}
	return reflect.DeepEqual(want, got)
}

func describeValues(values []any) []string {
	out := make([]string, len(values))
	for i, v := range values {
		e, err := toExpected(v)
		if err != nil {
			out[i] = err.Error()
			continue
		}
		out[i] = e.text
	}
	return out
}

// compareValues pairs records with wanted values greedily (each record
// consumes the first unmatched wanted value it matches).
func compareValues(rs []Record, values []any) (missing, extra []string, err error) {
	want := make([]expectedValue, len(values))
	for i, v := range values {
		if want[i], err = toExpected(v); err != nil {
			return nil, nil, err
		}
	}
	used := make([]bool, len(want))
	for _, r := range rs {
		found := false
		for i, w := range want {
			if !used[i] && w.matches(r.Value) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			extra = append(extra, r.position()+" "+showBytes(r.Value))
		}
	}
	for i, w := range want {
		if !used[i] {
			missing = append(missing, w.text)
		}
	}
	return missing, extra, nil
}

// HaveErrorCode succeeds when the actual error is (or wraps) an *APIError
// whose Fabric errorCode is code, such as "ItemNotFound" or
// "InsufficientPrivileges". On failure it says what happened instead: no
// error, another code (with status, message and request id), or an error
// that is not an API answer.
//
//	_, err := bad.TryResolve()
//	Expect(err).To(fabrictest.HaveErrorCode("ItemNotFound"))
func HaveErrorCode(code string) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(err error) (bool, error) {
		var ae *APIError
		return errors.As(err, &ae) && string(ae.ErrorCode) == code, nil
	}).WithPrecompiledTemplate(newTemplate(
		`Expected the call {{if .Failure}}to fail{{else}}not to fail{{end}} with Fabric errorCode {{printf "%q" .Data}}, but {{describeErr .Actual}}`, template.FuncMap{
			"describeErr": describeErr,
		}), code)
}

// describeErr says what an actual error was, for HaveErrorCode.
func describeErr(actual any) string {
	err, _ := actual.(error)
	if err == nil {
		return "it succeeded (no error)"
	}
	var ae *APIError
	if !errors.As(err, &ae) {
		return "it failed without an answer from the emulator:\n    " + err.Error()
	}
	s := fmt.Sprintf("it answered %d %s", ae.Status, orNone(string(ae.ErrorCode)))
	s += fmt.Sprintf(":\n    %s %s\n    message: %s", ae.Method, ae.Path, ae.Message)
	for _, d := range ae.MoreDetails {
		s += fmt.Sprintf("\n    detail: %s: %s", d.ErrorCode, d.Message)
	}
	if ae.RequestID != "" {
		s += "\n    requestId: " + ae.RequestID
	}
	return s
}

func orNone(code string) string {
	if code == "" {
		return "(no errorCode)"
	}
	return code
}
