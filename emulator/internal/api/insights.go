package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// Data insights of Eventstream nodes (fabric-docs, "Monitor the status and
// performance of an eventstream"): each node's metrics under Fabric's
// names, and its runtime logs.

// eventstreamMetrics serves GET …/eventstreams/{id}/metrics: every source,
// stream and destination with its metrics.
func (a insightHandlers) eventstreamMetrics(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleViewer)
	if err != nil {
		return err
	}
	nodes, err := a.plane.InsightNodes(c.r.Context(), es)
	if err != nil {
		return err
	}
	out := wire.EventstreamMetrics{EventstreamID: es.ID, Nodes: make([]wire.NodeMetrics, len(nodes))}
	for i, n := range nodes {
		out.Nodes[i] = n.NodeMetrics
	}
	return c.JSON(http.StatusOK, out)
}

// nodeMetricsRoute serves GET …/{sources|streams|destinations}/{node}/metrics.
func (a insightHandlers) nodeMetricsRoute(nodeType, param string) endpoint {
	return func(c *call) error {
		es, err := a.item(c, TypeEventstream, store.RoleViewer)
		if err != nil {
			return err
		}
		n, err := a.plane.FindInsightNode(c.r.Context(), es, nodeType, c.r.PathValue(param))
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, n.NodeMetrics)
	}
}

// logFilter reads ?level= (repeated or comma-separated) and ?keyword=.
func logFilter(c *call) ([]insights.Level, string, error) {
	var levels []insights.Level
	for _, v := range c.r.URL.Query()["level"] {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			l, err := insights.ParseLevel(s)
			if err != nil {
				return nil, "", fabricerr.BadParameter("level", "%v", err)
			}
			levels = append(levels, l)
		}
	}
	return levels, c.r.URL.Query().Get("keyword"), nil
}

// logsOf returns the nodes' runtime logs that pass the filter, newest
// first.
func logsOf(nodes []control.NodeInsights, levels []insights.Level, keyword string) []wire.LogEntry {
	out := []wire.LogEntry{}
	for _, n := range nodes {
		for _, e := range insights.Filter(n.Node.Logs(), levels, keyword) {
			out = append(out, wire.LogEntry{Time: e.Time, Level: string(e.Level), Message: e.Message, Attributes: e.Attrs,
				NodeID: n.ID, NodeName: n.Name, NodeType: n.NodeType})
		}
	}
	slices.SortStableFunc(out, func(x, y wire.LogEntry) int { return y.Time.Compare(x.Time) })
	return out
}

// runtimeLogs serves GET …/eventstreams/{id}/logs and, with nodeType,
// GET …/{sources|streams|destinations}/{node}/logs: runtime logs newest
// first, filtered by ?level= and ?keyword=.
func (a insightHandlers) runtimeLogs(nodeType, param string) endpoint {
	return func(c *call) error {
		es, err := a.item(c, TypeEventstream, store.RoleViewer)
		if err != nil {
			return err
		}
		levels, keyword, err := logFilter(c)
		if err != nil {
			return err
		}
		nodes, err := a.plane.InsightNodes(c.r.Context(), es)
		if nodeType != "" && err == nil {
			var n control.NodeInsights
			n, err = a.plane.FindInsightNode(c.r.Context(), es, nodeType, c.r.PathValue(param))
			nodes = []control.NodeInsights{n}
		}
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, wire.List[wire.LogEntry]{Value: logsOf(nodes, levels, keyword)})
	}
}

// insightsRoutes registers the data-insights routes.
func (a *API) insightsRoutes() {
	insightH := insightHandlers{a}
	base := "/v1/workspaces/{ws}/eventstreams/{id}"
	a.handle("GET "+base+"/metrics", true, insightH.eventstreamMetrics)
	a.handle("GET "+base+"/logs", true, insightH.runtimeLogs("", ""))
	for _, k := range []struct{ list, nodeType, param string }{
		{"sources", control.NodeSource, "ds"}, {"streams", control.NodeStream, "stream"}, {"destinations", control.NodeDestination, "dest"},
	} {
		a.handle("GET "+base+"/"+k.list+"/{"+k.param+"}/metrics", true, insightH.nodeMetricsRoute(k.nodeType, k.param))
		a.handle("GET "+base+"/"+k.list+"/{"+k.param+"}/logs", true, insightH.runtimeLogs(k.nodeType, k.param))
	}
	a.handle("GET /_emulator/metrics", false, insightH.prometheusMetrics)
}
