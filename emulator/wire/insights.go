package wire

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Node kinds of a data-insights answer: the topology list a node is in.
const (
	NodeTypeSource      = "Source"
	NodeTypeStream      = "Stream"
	NodeTypeDestination = "Destination"
)

// NodeMetrics is one node's data insights (GET
// …/{sources|streams|destinations}/{id}/metrics, and each entry of
// EventstreamMetrics).
type NodeMetrics struct {
	// ID is the node's id, as the topology shows it.
	ID string `json:"id"`
	// Name is the node's name.
	Name string `json:"name"`
	// Type is the node's type (Lakehouse, DefaultStream, CustomEndpoint, …).
	Type string `json:"type"`
	// NodeType is Source, Stream or Destination.
	NodeType string `json:"nodeType"`
	// Metrics are the counters by Fabric's metric name: every metric of the
	// node kind is there (0 until counted), the emulator's own once set.
	Metrics map[string]int64 `json:"metrics"`
}

// String describes the node and every counter on one line, names sorted.
func (m NodeMetrics) String() string {
	names := make([]string, 0, len(m.Metrics))
	for k := range m.Metrics {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s=%d", k, m.Metrics[k])
	}
	return fmt.Sprintf("%s %s (%s): %s", m.NodeType, m.ID, m.Type, strings.Join(parts, ", "))
}

// GomegaString makes gomega print the node with its counters.
func (m NodeMetrics) GomegaString() string { return m.String() }

// EventstreamMetrics is GET …/eventstreams/{id}/metrics: every source,
// stream and destination node of an Eventstream with its metrics.
type EventstreamMetrics struct {
	EventstreamID string        `json:"eventstreamId"`
	Nodes         []NodeMetrics `json:"nodes"`
}

// Node returns the node with id (any case), or false.
func (em EventstreamMetrics) Node(id string) (NodeMetrics, bool) {
	for _, n := range em.Nodes {
		if strings.EqualFold(n.ID, id) {
			return n, true
		}
	}
	return NodeMetrics{}, false
}

// LogEntry is one runtime log line of a node (the value of GET …/logs).
type LogEntry struct {
	Time time.Time `json:"time"`
	// Level is Information, Warning or Error.
	Level      string         `json:"level"`
	Message    string         `json:"message"`
	Attributes map[string]any `json:"attributes,omitempty"`
	NodeID     string         `json:"nodeId"`
	NodeName   string         `json:"nodeName"`
	NodeType   string         `json:"nodeType"`
}

// String shows the entry on one line.
func (e LogEntry) String() string {
	return fmt.Sprintf("%s %s %s: %s", e.Time.Format(time.RFC3339Nano), e.Level, e.NodeID, e.Message)
}
