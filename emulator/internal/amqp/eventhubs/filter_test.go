package eventhubs

import (
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// TestParseSelector checks the expressions the Event Hubs SDKs write.
func TestParseSelector(t *testing.T) {
	for _, c := range []struct {
		expr string
		want Position
	}{
		{"amqp.annotation.x-opt-offset > '-1'", Position{Kind: FromEarliest}},
		{"amqp.annotation.x-opt-offset > '@latest'", Position{Kind: FromLatest}},
		{"amqp.annotation.x-opt-offset >= '120'", Position{Kind: FromOffset, Value: 120, Inclusive: true}},
		{"amqp.annotation.x-opt-sequence-number > '7'", Position{Kind: FromSequence, Value: 7}},
		{"amqp.annotation.x-opt-enqueued-time > '1700000000123'", Position{Kind: FromTime, Time: time.UnixMilli(1700000000123).UTC()}},
	} {
		got, err := parseSelector(c.expr)
		if err != nil || got != c.want {
			t.Errorf("parseSelector(%q) = %+v, %v; want %+v", c.expr, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "amqp.annotation.x-opt-offset = '1'", "amqp.annotation.x-opt-offset > 1",
		"amqp.annotation.x-opt-offset > 'abc'", "amqp.annotation.x-opt-owner > '1'", "a > 'b' c"} {
		if _, err := parseSelector(bad); err == nil {
			t.Errorf("parseSelector(%q) succeeded", bad)
		}
	}
}

// TestPositionOfFilterSet reads the selector by symbol and by code, and
// defaults to the latest event without one.
func TestPositionOfFilterSet(t *testing.T) {
	for _, d := range []any{selectorFilterName, selectorFilterCode} {
		p, err := positionOf(amqp.Map{{Key: amqp.Symbol("f"), Value: amqp.Described{Descriptor: d, Value: "amqp.annotation.x-opt-sequence-number >= '3'"}}})
		if err != nil || p != (Position{Kind: FromSequence, Value: 3, Inclusive: true}) {
			t.Errorf("descriptor %v: %+v %v", d, p, err)
		}
	}
	if p, err := positionOf(nil); err != nil || p.Kind != FromLatest {
		t.Errorf("no filter: %+v %v", p, err)
	}
}

// FuzzParseSelector checks the selector parser never panics and keeps
// what it parses consistent.
func FuzzParseSelector(f *testing.F) {
	f.Add("amqp.annotation.x-opt-offset >= '120'")
	f.Add("amqp.annotation.x-opt-enqueued-time > '1'")
	f.Fuzz(func(t *testing.T, expr string) {
		p, err := parseSelector(expr)
		if err == nil && (p.Kind < FromEarliest || p.Kind > FromTime) {
			t.Fatalf("parsed %q into kind %d", expr, p.Kind)
		}
	})
}
