package faults

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// counterKey is one series of the injected-faults counter.
type counterKey struct{ rule, door, effect string }

// counter counts hits by rule, door and effect.
type counter struct {
	mu sync.Mutex
	n  map[counterKey]int64
}

func newCounter() *counter { return &counter{n: map[counterKey]int64{}} }

func (c *counter) inc(h *Hit) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[counterKey{h.Rule, h.Req.Door, h.Effect.Kind}]++
}

// MetricName is the Prometheus counter of injected faults.
const MetricName = "fabric_emulator_faults_injected_total"

var injectedDesc = prometheus.NewDesc(MetricName, "Faults injected by the emulator's fault rules.", []string{"rule", "door", "effect"}, nil)

// Collector returns a Prometheus collector of the faults s injected, ever
// (ended rules included).
func (s *Set) Collector() prometheus.Collector { return collector{s} }

type collector struct{ s *Set }

// Describe sends the counter's description.
func (c collector) Describe(ch chan<- *prometheus.Desc) { ch <- injectedDesc }

// Collect sends one series per rule, door and effect.
func (c collector) Collect(ch chan<- prometheus.Metric) {
	if c.s == nil {
		return
	}
	c.s.counter.mu.Lock()
	defer c.s.counter.mu.Unlock()
	for k, v := range c.s.counter.n {
		ch <- prometheus.MustNewConstMetric(injectedDesc, prometheus.CounterValue, float64(v), k.rule, k.door, k.effect)
	}
}

// Total is how many faults s injected, ever.
func (s *Set) Total() int64 {
	if s == nil {
		return 0
	}
	s.counter.mu.Lock()
	defer s.counter.mu.Unlock()
	var t int64
	for _, v := range s.counter.n {
		t += v
	}
	return t
}
