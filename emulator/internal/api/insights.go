package api

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// Data insights of Eventstream nodes (fabric-docs, "Monitor the status and
// performance of an eventstream"): each node's metrics under Fabric's
// names, and its runtime logs.

// Node kinds of a data-insights answer (the topology list a node is in).
const (
	nodeSource      = "Source"
	nodeStream      = "Stream"
	nodeDestination = "Destination"
)

// Fabric's metrics of each node kind, always present in an answer (0 until
// counted); emulator-only counters (DroppedFields, …) join them once set.
var nodeMetrics = map[string][]insights.Metric{
	nodeSource: {insights.InputEvents, insights.InputEventBytes, insights.OutputEvents},
	nodeStream: {insights.IncomingMessages, insights.IncomingBytes, insights.OutgoingMessages, insights.OutgoingBytes},
	nodeDestination: {insights.InputEvents, insights.InputEventBytes, insights.OutputEvents, insights.OutputEventBytes,
		insights.BackloggedInputEvents, insights.RuntimeErrors, insights.DataConversionErrors,
		insights.DeserializationErrors, insights.WatermarkDelaySeconds},
}

// nodeInsights is one node's data insights as the routes answer them,
// with the runtime's counters they are read from.
type nodeInsights struct {
	wire.NodeMetrics
	node *insights.Node
}

// insightNodes lists es's sources, streams and destinations as its
// topology renders them, with their metrics.
func (a *API) insightNodes(ctx context.Context, es store.Item) ([]nodeInsights, error) {
	t, err := a.renderTopology(ctx, es, false)
	if err != nil {
		return nil, err
	}
	m, err := eventstream.Decode(es)
	if err != nil {
		return nil, err
	}
	var out []nodeInsights
	for _, kind := range []struct {
		list     []wire.Node
		nodeType string
	}{{t.Sources, nodeSource}, {t.Streams, nodeStream}, {t.Destinations, nodeDestination}} {
		for _, n := range kind.list {
			if n.ID == "" {
				continue
			}
			ni := nodeInsights{NodeMetrics: wire.NodeMetrics{ID: n.ID, Name: n.Name, Type: n.Type, NodeType: kind.nodeType}}
			ni.node = a.insightsNode(es.ID, ni)
			ni.Metrics = a.metricsOf(ctx, m, ni)
			out = append(out, ni)
		}
	}
	return out, nil
}

// insightsNode is the runtime's insights of node n of Eventstream esID.
func (a *API) insightsNode(esID string, n nodeInsights) *insights.Node {
	switch n.NodeType {
	case nodeSource:
		return a.rt.SourceNode(esID, n.ID)
	case nodeStream:
		return a.rt.StreamNode(esID, n.ID)
	}
	return a.rt.Insights(n.ID)
}

// metricsOf reads n's counters; a destination's backlog is computed now.
func (a *API) metricsOf(ctx context.Context, m eventstream.Model, n nodeInsights) map[string]int64 {
	out := map[string]int64{}
	for _, k := range nodeMetrics[n.NodeType] {
		out[string(k)] = 0
	}
	for k, v := range n.node.Counters() {
		out[string(k)] = v
	}
	if n.NodeType == nodeDestination {
		if b, ok := a.rt.Backlog(ctx, n.ID, m.Default().Topic); ok {
			out[string(insights.BackloggedInputEvents)] = b
		}
	}
	return out
}

// findInsightNode finds node id of nodeType among es's nodes, answering
// Fabric's not-found envelope when it has none.
func (a *API) findInsightNode(ctx context.Context, es store.Item, nodeType, id string) (nodeInsights, error) {
	nodes, err := a.insightNodes(ctx, es)
	if err != nil {
		return nodeInsights{}, err
	}
	for _, n := range nodes {
		if n.NodeType == nodeType && strings.EqualFold(n.ID, id) {
			return n, nil
		}
	}
	if nodeType == nodeDestination {
		return nodeInsights{}, fabricerr.NotFound(wire.DestinationNotFound, nodeType, id)
	}
	return nodeInsights{}, fabricerr.NotFound(fabricerr.EntityNotFound, nodeType, id)
}

// eventstreamMetrics serves GET …/eventstreams/{id}/metrics: every source,
// stream and destination with its metrics.
func (a *API) eventstreamMetrics(c *call) error {
	es, err := a.item(c, TypeEventstream, store.RoleViewer)
	if err != nil {
		return err
	}
	nodes, err := a.insightNodes(c.r.Context(), es)
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
func (a *API) nodeMetricsRoute(nodeType, param string) endpoint {
	return func(c *call) error {
		es, err := a.item(c, TypeEventstream, store.RoleViewer)
		if err != nil {
			return err
		}
		n, err := a.findInsightNode(c.r.Context(), es, nodeType, c.r.PathValue(param))
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
func logsOf(nodes []nodeInsights, levels []insights.Level, keyword string) []wire.LogEntry {
	out := []wire.LogEntry{}
	for _, n := range nodes {
		for _, e := range insights.Filter(n.node.Logs(), levels, keyword) {
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
func (a *API) runtimeLogs(nodeType, param string) endpoint {
	return func(c *call) error {
		es, err := a.item(c, TypeEventstream, store.RoleViewer)
		if err != nil {
			return err
		}
		levels, keyword, err := logFilter(c)
		if err != nil {
			return err
		}
		nodes, err := a.insightNodes(c.r.Context(), es)
		if nodeType != "" && err == nil {
			var n nodeInsights
			n, err = a.findInsightNode(c.r.Context(), es, nodeType, c.r.PathValue(param))
			nodes = []nodeInsights{n}
		}
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, wire.List[wire.LogEntry]{Value: logsOf(nodes, levels, keyword)})
	}
}

// insightsRoutes registers the data-insights routes.
func (a *API) insightsRoutes() {
	base := "/v1/workspaces/{ws}/eventstreams/{id}"
	a.handle("GET "+base+"/metrics", true, a.eventstreamMetrics)
	a.handle("GET "+base+"/logs", true, a.runtimeLogs("", ""))
	for _, k := range []struct{ list, nodeType, param string }{
		{"sources", nodeSource, "ds"}, {"streams", nodeStream, "stream"}, {"destinations", nodeDestination, "dest"},
	} {
		a.handle("GET "+base+"/"+k.list+"/{"+k.param+"}/metrics", true, a.nodeMetricsRoute(k.nodeType, k.param))
		a.handle("GET "+base+"/"+k.list+"/{"+k.param+"}/logs", true, a.runtimeLogs(k.nodeType, k.param))
	}
	a.handle("GET /_emulator/metrics", false, a.prometheusMetrics)
}
