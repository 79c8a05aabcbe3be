package eventhouse_test

import (
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/eventhouse"
)

func TestQuoteName(t *testing.T) {
	for in, want := range map[string]string{
		"kind":       `['kind']`,
		"Events":     `['Events']`,
		"my col-1.x": `['my col-1.x']`,
		"it's":       `['it\'s']`,
		`back\slash`: `['back\\slash']`,
		`\'`:         `['\\\'']`,
		"日本":         `['日本']`,
	} {
		if got := eventhouse.QuoteName(in); got != want {
			t.Errorf("QuoteName(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestColumnName(t *testing.T) {
	for in, want := range map[string]string{
		"kind":        "kind",
		"where":       "where",
		"a b.c-d_e":   "a b.c-d_e",
		"héllo":       "héllo",
		"@timestamp":  "_timestamp",
		"user:id":     "user_id",
		"it's":        "it_s",
		`a\b`:         "a_b",
		"":            "f",
		"__meta":      "f__meta",
		"meta__":      "meta__f",
		"x;y/z":       "x_y_z",
		"emoji🙂":      "emoji_",
		"1st":         "1st",
		"tab\tinside": "tab_inside",
	} {
		got := eventhouse.ColumnName(in)
		if got != want {
			t.Errorf("ColumnName(%q) = %q, want %q", in, got, want)
		}
		if err := eventhouse.ValidateName(got); err != nil {
			t.Errorf("ColumnName(%q) = %q is not valid: %v", in, got, err)
		}
	}
	long := eventhouse.ColumnName(strings.Repeat("ä", 2000) + ":")
	if n := len([]rune(long)); n > 1024 || eventhouse.ValidateName(long) != nil {
		t.Errorf("long name: %d runes", n)
	}
}

func TestValidateName(t *testing.T) {
	for _, ok := range []string{"kind", "T", "my table", "a.b-c", "_x", "x_", "1day"} {
		if err := eventhouse.ValidateName(ok); err != nil {
			t.Errorf("ValidateName(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a:b", "it's", "__x", "x__", strings.Repeat("a", 1025), "a\nb"} {
		if err := eventhouse.ValidateName(bad); err == nil {
			t.Errorf("ValidateName(%q) accepted", bad)
		}
	}
}
