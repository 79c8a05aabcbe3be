package control

import (
	"context"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// Data insights of Eventstream nodes (fabric-docs, "Monitor the status and
// performance of an eventstream"): each node of the topology with the
// runtime's counters under Fabric's names.

// Node kinds of a data-insights answer (the topology list a node is in).
const (
	NodeSource      = "Source"
	NodeStream      = "Stream"
	NodeDestination = "Destination"
)

// Fabric's metrics of each node kind, always present in an answer (0 until
// counted); emulator-only counters (DroppedFields, …) join them once set.
var nodeMetrics = map[string][]insights.Metric{
	NodeSource: {insights.InputEvents, insights.InputEventBytes, insights.OutputEvents},
	NodeStream: {insights.IncomingMessages, insights.IncomingBytes, insights.OutgoingMessages, insights.OutgoingBytes},
	NodeDestination: {insights.InputEvents, insights.InputEventBytes, insights.OutputEvents, insights.OutputEventBytes,
		insights.BackloggedInputEvents, insights.RuntimeErrors, insights.DataConversionErrors,
		insights.DeserializationErrors, insights.WatermarkDelaySeconds},
}

// NodeInsights is one node's data insights as the routes answer them,
// with the runtime's counters they are read from.
type NodeInsights struct {
	wire.NodeMetrics
	// Node is the runtime's counters and logs of the node.
	Node *insights.Node
}

// InsightNodes lists es's sources, streams and destinations as its
// topology renders them, with their metrics.
func (p *Plane) InsightNodes(ctx context.Context, es store.Item) ([]NodeInsights, error) {
	t, err := p.Topology(ctx, es, false)
	if err != nil {
		return nil, err
	}
	m, err := eventstream.Decode(es)
	if err != nil {
		return nil, err
	}
	var out []NodeInsights
	for _, kind := range []struct {
		list     []wire.Node
		nodeType string
	}{{t.Sources, NodeSource}, {t.Streams, NodeStream}, {t.Destinations, NodeDestination}} {
		for _, n := range kind.list {
			if n.ID == "" {
				continue
			}
			ni := NodeInsights{NodeMetrics: wire.NodeMetrics{ID: n.ID, Name: n.Name, Type: n.Type, NodeType: kind.nodeType}}
			ni.Node = p.insightsNode(es.ID, ni)
			ni.Metrics = p.metricsOf(ctx, m, ni)
			out = append(out, ni)
		}
	}
	return out, nil
}

// insightsNode is the runtime's insights of node n of Eventstream esID.
func (p *Plane) insightsNode(esID string, n NodeInsights) *insights.Node {
	switch n.NodeType {
	case NodeSource:
		return p.rt.SourceNode(esID, n.ID)
	case NodeStream:
		return p.rt.StreamNode(esID, n.ID)
	}
	return p.rt.Insights(n.ID)
}

// metricsOf reads n's counters; a destination's backlog is computed now.
func (p *Plane) metricsOf(ctx context.Context, m eventstream.Model, n NodeInsights) map[string]int64 {
	out := map[string]int64{}
	for _, k := range nodeMetrics[n.NodeType] {
		out[string(k)] = 0
	}
	for k, v := range n.Node.Counters() {
		out[string(k)] = v
	}
	if n.NodeType == NodeDestination {
		if b, ok := p.rt.Backlog(ctx, n.ID, m.Default().Topic); ok {
			out[string(insights.BackloggedInputEvents)] = b
		}
	}
	return out
}

// FindInsightNode finds node id of nodeType among es's nodes, answering
// Fabric's not-found envelope when it has none.
func (p *Plane) FindInsightNode(ctx context.Context, es store.Item, nodeType, id string) (NodeInsights, error) {
	nodes, err := p.InsightNodes(ctx, es)
	if err != nil {
		return NodeInsights{}, err
	}
	for _, n := range nodes {
		if n.NodeType == nodeType && strings.EqualFold(n.ID, id) {
			return n, nil
		}
	}
	if nodeType == NodeDestination {
		return NodeInsights{}, fabricerr.NotFound(wire.DestinationNotFound, nodeType, id)
	}
	return NodeInsights{}, fabricerr.NotFound(fabricerr.EntityNotFound, nodeType, id)
}
