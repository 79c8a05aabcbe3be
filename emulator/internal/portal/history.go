package portal

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// History settings: how long the portal keeps the figures it read, and
// the least time between two samples of one node.
const (
	historyKeep = 10 * time.Minute
	historyStep = 1500 * time.Millisecond
)

// Sparkline geometry.
const (
	sparkW = 180
	sparkH = 36
)

// history keeps, per node, the data-insight counters the portal read
// (each page and each 2 s refresh reads them) over the last minutes, for
// the cards' small charts. The API answers counters only; their rate is
// drawn, so a chart fills while someone looks at the Eventstream.
type history struct {
	mu     sync.Mutex
	now    func() time.Time
	nodes  map[string][]sample
	pruned time.Time
}

// sample is one reading of a node's counters.
type sample struct {
	at time.Time
	v  map[string]int64
}

func newHistory(now func() time.Time) *history {
	return &history{now: now, nodes: map[string][]sample{}}
}

// record adds a reading of node id's metrics (unless the last is newer
// than historyStep) and forgets readings older than historyKeep.
func (h *history) record(id string, ms []metric) {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.nodes[id]
	if n := len(s); n > 0 && now.Sub(s[n-1].at) < historyStep {
		return
	}
	v := make(map[string]int64, len(ms))
	for _, m := range ms {
		v[m.Name] = m.Value
	}
	s = append(s, sample{at: now, v: v})
	for len(s) > 0 && now.Sub(s[0].at) > historyKeep {
		s = s[1:]
	}
	h.nodes[id] = s
	if now.Sub(h.pruned) > time.Minute { // nodes no page asks about any more
		h.pruned = now
		for k, ss := range h.nodes {
			if now.Sub(ss[len(ss)-1].at) > historyKeep {
				delete(h.nodes, k)
			}
		}
	}
}

// spark is a node's small chart: the rate of one counter.
type spark struct {
	Metric string `json:"metric"`
	Points string `json:"points"` // an SVG polyline's points, sparkW × sparkH
	Label  string `json:"label"`  // what it shows, in words
}

// chart draws the per-second rate of the first of metrics node id has,
// over the kept readings; nil with fewer than two readings.
func (h *history) chart(id string, metrics ...string) *spark {
	h.mu.Lock()
	s := append([]sample(nil), h.nodes[id]...)
	h.mu.Unlock()
	if len(s) < 2 {
		return nil
	}
	name := ""
	for _, m := range metrics {
		if _, ok := s[len(s)-1].v[m]; ok {
			name = m
			break
		}
	}
	if name == "" {
		return nil
	}
	rates := make([]float64, 0, len(s)-1)
	peak := 0.0
	for i := 1; i < len(s); i++ {
		dt := s[i].at.Sub(s[i-1].at).Seconds()
		r := max(0, float64(s[i].v[name]-s[i-1].v[name])/dt)
		rates = append(rates, r)
		peak = max(peak, r)
	}
	span := s[len(s)-1].at.Sub(s[0].at)
	var pts []string
	for i, r := range rates {
		x := 0.0
		if len(rates) > 1 {
			x = float64(i) * sparkW / float64(len(rates)-1)
		}
		y := float64(sparkH - 2)
		if peak > 0 {
			y = float64(sparkH-2) - r/peak*float64(sparkH-4)
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
	}
	return &spark{Metric: name, Points: strings.Join(pts, " "),
		Label: fmt.Sprintf("%s per second over the last %s: now %.1f, peak %.1f", name, span.Round(time.Second), rates[len(rates)-1], peak)}
}

// chartMetrics is the counter a node's chart shows, by the node's kind.
func chartMetrics(kind string) []string {
	if kind == "streams" {
		return []string{"IncomingMessages"}
	}
	return []string{"InputEvents", "OutputEvents"}
}
