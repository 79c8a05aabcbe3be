package pipeline

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func mustParse(t *testing.T, doc string) []Operator {
	t.Helper()
	ops, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("Parse(%s): %v", doc, err)
	}
	return ops
}

func mustPipeline(t *testing.T, doc string) *Pipeline {
	t.Helper()
	p, err := New(mustParse(t, doc))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

func row(doc string) rows.Row { return rows.FromValue([]byte(doc)) }

// events builds events from JSON rows on partition 0 with offsets 0, 1, …
// and record timestamps t0, t0+1s, …
func events(docs ...string) []Event {
	out := make([]Event, len(docs))
	for i, d := range docs {
		out[i] = Event{Row: row(d), Timestamp: t0.Add(time.Duration(i) * time.Second), Offset: int64(i)}
	}
	return out
}

// texts renders rows as JSON (keys sorted) for comparison and messages.
func texts(rs []rows.Row) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		raw, err := json.Marshal(r)
		if err != nil {
			panic(err)
		}
		out[i] = string(raw)
	}
	return out
}

func equalTexts(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

// interleave merges two partitions' events in a random order that keeps
// each partition's own order.
func interleave(a, b []Event, seed int64) []Event {
	r := rand.New(rand.NewPCG(uint64(seed), 7))
	out := make([]Event, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || (i < len(a) && r.IntN(2) == 0) {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return out
}
