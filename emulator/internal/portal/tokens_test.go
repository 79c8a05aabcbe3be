package portal

import (
	"fmt"
	"testing"
	"time"
)

// TestTokensAreReusedForAMinute: one mint per principal per minute.
func TestTokensAreReusedForAMinute(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	tk := &tokens{now: func() time.Time { return at }, last: map[string]minted{},
		mint: func(p string) (string, error) { n++; return fmt.Sprintf("%s-%d", p, n), nil }}
	a, _ := tk.get("a")
	a2, _ := tk.get("a")
	b, _ := tk.get("b")
	if a != "a-1" || a2 != a || b != "b-2" {
		t.Fatalf("tokens %s %s %s", a, a2, b)
	}
	at = at.Add(tokenReuse)
	if a3, _ := tk.get("a"); a3 != "a-3" {
		t.Fatalf("after a minute: %s", a3)
	}
}
