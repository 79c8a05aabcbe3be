package portal

import (
	"strings"
	"testing"
	"time"
)

// TestHistoryChartsRates: readings closer than historyStep are dropped,
// the chart draws the per-second rate (5/s then 15/s: the second point at
// the top), and readings older than historyKeep go.
func TestHistoryChartsRates(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := newHistory(func() time.Time { return at })
	read := func(d time.Duration, n int64) {
		at = at.Add(d)
		h.record("n", []metric{{Name: "InputEvents", Value: n}})
	}
	read(0, 0)
	if h.chart("n", "InputEvents") != nil {
		t.Fatal("a chart from one reading")
	}
	read(time.Second, 99) // too soon: dropped
	read(time.Second, 10)
	read(2*time.Second, 40)
	c := h.chart("n", "OutputEvents", "InputEvents")
	if c == nil || c.Metric != "InputEvents" || c.Points != "0.0,23.3 180.0,2.0" || !strings.Contains(c.Label, "now 15.0, peak 15.0") {
		t.Fatalf("chart: %+v", c)
	}
	read(historyKeep, 40)
	read(2*time.Second, 40)
	if c := h.chart("n", "InputEvents"); c == nil || !strings.Contains(c.Label, "over the last 2s") {
		t.Fatalf("old readings kept: %+v", c)
	}
	at = at.Add(historyKeep + 2*time.Minute)
	h.record("other", nil)
	if _, ok := h.nodes["n"]; ok {
		t.Fatal("a node nobody reads any more is kept")
	}
}
