package main

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// ledger is what the producer knows: the ids of the events the emulator
// acknowledged (a 200 answer) and of those it sent without an
// acknowledgement (an error answer, or none: the process was killed).
type ledger struct {
	acked, unacked map[string]bool
}

func newLedger() *ledger {
	return &ledger{acked: map[string]bool{}, unacked: map[string]bool{}}
}

// exactlyOnce compares the ids of a table's rows with the ledger: every
// acknowledged id exactly once, an unacknowledged one at most once, nothing
// else. It returns one line per violation (at most max), sorted.
func exactlyOnce(l *ledger, ids []string, max int) []string {
	count := map[string]int{}
	for _, id := range ids {
		count[id]++
	}
	var bad []string
	for id := range l.acked {
		if n := count[id]; n != 1 {
			bad = append(bad, fmt.Sprintf("acknowledged event %s is in the table %d times", id, n))
		}
	}
	for id, n := range count {
		switch {
		case l.acked[id]:
		case !l.unacked[id]:
			bad = append(bad, fmt.Sprintf("event %s is in the table %d times but was never sent", id, n))
		case n > 1:
			bad = append(bad, fmt.Sprintf("unacknowledged event %s is in the table %d times", id, n))
		}
	}
	sort.Strings(bad)
	if len(bad) > max {
		bad = append(bad[:max], fmt.Sprintf("… and %d more", len(bad)-max))
	}
	return bad
}

// TestExactlyOnceCheck: the SIGKILL loop's assertion reports a duplicated
// acknowledged row, a lost one, a duplicated unacknowledged one and a row
// nobody sent, and nothing for a table that holds each acknowledged event
// once and some unacknowledged ones at most once.
func TestExactlyOnceCheck(t *testing.T) {
	l := newLedger()
	for _, id := range []string{"a1", "a2", "a3"} {
		l.acked[id] = true
	}
	l.unacked["u1"], l.unacked["u2"] = true, true
	if bad := exactlyOnce(l, []string{"a1", "u1", "a2", "a3"}, 10); len(bad) != 0 {
		t.Fatalf("a correct table is reported: %v", bad)
	}
	bad := exactlyOnce(l, []string{"a1", "a1", "a3", "u1", "u1", "x9"}, 10)
	want := []string{
		"acknowledged event a1 is in the table 2 times",
		"acknowledged event a2 is in the table 0 times",
		"event x9 is in the table 1 times but was never sent",
		"unacknowledged event u1 is in the table 2 times",
	}
	if strings.Join(bad, "\n") != strings.Join(want, "\n") {
		t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(bad, "\n"), strings.Join(want, "\n"))
	}
}
