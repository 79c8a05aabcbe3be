package portal

import (
	"testing"
	"time"
)

// TestCellFormatsValuesAsTheirTypes: timestamps without quotes, whole
// doubles with their decimal point, longs and the rest as they are.
func TestCellFormatsValuesAsTheirTypes(t *testing.T) {
	for _, c := range []struct {
		in   any
		want string
	}{
		{nil, "null"},
		{"ada", "ada"},
		{time.Date(2026, 1, 2, 3, 4, 5, 120000000, time.UTC), "2026-01-02T03:04:05.12Z"},
		{time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)), "2026-01-02T02:04:05Z"},
		{15.0, "15.0"},
		{12.5, "12.5"},
		{1e21, "1e+21"},
		{int64(15), "15"},
		{true, "true"},
		{map[string]any{"a": 1.0}, `{"a":1}`},
	} {
		if got := cell(c.in); got != c.want {
			t.Errorf("cell(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}
