package api

import (
	"context"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The Prometheus exposition of every Eventstream node's data insights:
// GET /_emulator/metrics. Each metric is fabric_eventstream_<name in
// snake case>, with _total on counters (InputEvents is
// fabric_eventstream_input_events_total); BackloggedInputEvents and
// WatermarkDelaySeconds are gauges. Labels: workspace (id), eventstream
// (id), node (the id the topology renders), node_type (Source, Stream,
// Destination).

// promLabels are the labels of every data-insights metric.
var promLabels = []string{"workspace", "eventstream", "node", "node_type"}

// gauges are the metrics that are not counters.
var gauges = map[insights.Metric]bool{insights.BackloggedInputEvents: true, insights.WatermarkDelaySeconds: true}

// PromName is metric m's Prometheus name.
func PromName(m insights.Metric) string {
	var b strings.Builder
	b.WriteString("fabric_eventstream_")
	for i, r := range string(m) {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	if !gauges[m] {
		b.WriteString("_total")
	}
	return b.String()
}

// insightsCollector collects every Eventstream's node metrics when
// scraped (an unchecked collector: the set of series is not known ahead).
type insightsCollector struct{ a *API }

// Describe describes nothing: the collector is unchecked.
func (insightsCollector) Describe(chan<- *prometheus.Desc) {}

// Collect reads every Eventstream's nodes from the store and the runtime.
func (ic insightsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	items, err := ic.a.cfg.Store.ListItemsOfType(ctx, TypeEventstream)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(prometheus.NewDesc("fabric_eventstream_error", "reading Eventstreams failed", nil, nil), err)
		return
	}
	for _, es := range items {
		nodes, err := ic.a.plane.InsightNodes(ctx, es)
		if err != nil {
			continue // an Eventstream whose model does not decode has no nodes to show
		}
		for _, n := range nodes {
			for k, v := range n.Metrics {
				m := insights.Metric(k)
				typ := prometheus.CounterValue
				if gauges[m] {
					typ = prometheus.GaugeValue
				}
				desc := prometheus.NewDesc(PromName(m), "Eventstream data insight "+k+" (Fabric's metric name).", promLabels, nil)
				ch <- prometheus.MustNewConstMetric(desc, typ, float64(v), es.WorkspaceID, es.ID, n.ID, n.NodeType)
			}
		}
	}
}

// prometheusMetrics serves GET /_emulator/metrics in Prometheus text
// format, to loopback callers (or any caller with --remote-tokens, as the
// token route).
func (a insightHandlers) prometheusMetrics(c *call) error {
	host, _, err := net.SplitHostPort(c.r.RemoteAddr)
	if ip := net.ParseIP(host); !a.cfg.RemoteTokens && (err != nil || ip == nil || !ip.IsLoopback()) {
		return fabricerr.New(http.StatusForbidden, fabricerr.Forbidden, "metrics are served to loopback callers only")
	}
	reg := prometheus.NewRegistry()
	if err := reg.Register(insightsCollector{a.API}); err != nil {
		return err
	}
	if err := reg.Register(a.cfg.Faults.Collector()); err != nil {
		return err
	}
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}).ServeHTTP(c.w, c.r)
	return nil
}
