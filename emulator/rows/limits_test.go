package rows

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	for name, want := range map[string]string{
		"id": "", "名前": "", "a b": "", "prix €": "", "_": "", ".": "",
		"":        "is empty",
		" ":       "is blank",
		"\u3000":  "is blank",
		"\x00":    "U+0000",
		"a\nb":    "U+000A",
		"tab\t":   "U+0009",
		"del\x7f": "U+007F",
		"\u0085":  "U+0085",
		"\xff":    "not valid UTF-8",
	} {
		got := CheckName(name)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("CheckName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestCheckDepthAndPaths(t *testing.T) {
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n-1) + "1" + strings.Repeat(close, n-1)
	}
	for _, tc := range []struct {
		value string
		path  string // "" when the value passes
	}{
		{`{"a":1}`, ""},
		{`{"x":` + deep(`{"a":`, "}", MaxDepth) + `}`, ""},
		{`{"x":` + deep(`[`, "]", MaxDepth) + `}`, ""},
		{`{"x":` + deep(`{"a":`, "}", MaxDepth+1) + `}`, "x" + strings.Repeat(".a", MaxDepth-1)},
		{`{"x":` + deep(`[`, "]", MaxDepth+1) + `}`, "x" + strings.Repeat("[]", MaxDepth-1)},
		{`{"o":{"ok":[{"\u0000":1}]}}`, "o.ok[]"},
		{`{"":1}`, "-"},
	} {
		err := CheckValue([]byte(tc.value))
		var le *LimitError
		switch {
		case tc.path == "" && err != nil:
			t.Errorf("%.50s: %v, want no error", tc.value, err)
		case tc.path != "" && !errors.As(err, &le):
			t.Errorf("%.50s: %v, want a *LimitError", tc.value, err)
		case tc.path == "-" && le.Path != "", tc.path != "-" && tc.path != "" && le.Path != tc.path:
			t.Errorf("%.50s: path %q, want %q", tc.value, le.Path, tc.path)
		}
	}
	// Values that do not become rows by their members always pass.
	for _, v := range []string{deep("[", "]", 300), `"{\"\":1}"`, `{"broken":`, "\xff"} {
		if err := CheckValue([]byte(v)); err != nil {
			t.Errorf("%.20s: %v", v, err)
		}
	}
	// Rows built in Go are checked the same way.
	if err := Check(Row{"r": Row{"\t": 1}}); err == nil {
		t.Error("nested Row with a tab name passed")
	}
}
