// Package insights keeps the data insights Fabric shows for each node of an
// Eventstream (fabric-docs, "Monitor the status and performance of an
// eventstream"): counters under Fabric's metric names, and the node's
// runtime logs (warnings and errors, newest first).
package insights

import (
	"sync"
	"time"
)

// Metric is a data-insights metric, named as Fabric names it (without
// spaces).
type Metric string

// Metrics of source and destination nodes.
const (
	InputEvents           Metric = "InputEvents"
	InputEventBytes       Metric = "InputEventBytes"
	OutputEvents          Metric = "OutputEvents"
	OutputEventBytes      Metric = "OutputEventBytes"
	BackloggedInputEvents Metric = "BackloggedInputEvents"
	RuntimeErrors         Metric = "RuntimeErrors"
	DataConversionErrors  Metric = "DataConversionErrors"
	DeserializationErrors Metric = "DeserializationErrors"
	// WatermarkDelaySeconds is a gauge: the node's watermark delay.
	WatermarkDelaySeconds Metric = "WatermarkDelaySeconds"
)

// Metrics of stream nodes.
const (
	IncomingMessages Metric = "IncomingMessages"
	OutgoingMessages Metric = "OutgoingMessages"
	IncomingBytes    Metric = "IncomingBytes"
	OutgoingBytes    Metric = "OutgoingBytes"
)

// Emulator-only counters of a Lakehouse destination: what Fabric does
// silently, counted so a test can see it.
const (
	// DroppedFields counts fields not written because the table has no
	// column for them (schema enforcement).
	DroppedFields Metric = "DroppedFields"
	// DeadLetteredEvents counts records the dlq policy sent to the
	// dead-letter topic.
	DeadLetteredEvents Metric = "DeadLetteredEvents"
	// GroupsOverLimit counts rows a GroupBy or Aggregate operator could
	// not hold because its state reached pipeline.MaxGroups groups.
	GroupsOverLimit Metric = "GroupsOverLimit"
)

// Level is a runtime log entry's level.
type Level string

// Levels of runtime logs, as Fabric's runtime logs filter them.
const (
	LevelInformation Level = "Information"
	LevelWarning     Level = "Warning"
	LevelError       Level = "Error"
)

// Entry is one runtime log line of a node.
type Entry struct {
	Time    time.Time      `json:"time"`
	Level   Level          `json:"level"`
	Message string         `json:"message"`
	Attrs   map[string]any `json:"attributes,omitempty"`
}

// Node is one node's counters and recent logs. Its methods are safe for
// concurrent use; a nil *Node ignores everything (a writer built without
// insights).
type Node struct {
	mu       sync.Mutex
	counters map[Metric]int64
	logs     []Entry // oldest first, at most maxLogs
	dirty    bool    // changed since the last Registry.Changed
}

// maxLogs bounds a node's kept runtime logs.
const maxLogs = 500

// Add adds n to metric m.
func (n *Node) Add(m Metric, v int64) {
	if n == nil || v == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.counters == nil {
		n.counters = map[Metric]int64{}
	}
	n.counters[m] += v
	n.dirty = true
}

// Set sets gauge m to v.
func (n *Node) Set(m Metric, v int64) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.counters == nil {
		n.counters = map[Metric]int64{}
	}
	if n.counters[m] != v {
		n.counters[m] = v
		n.dirty = true
	}
}

// Log records a runtime log entry; attrs are key, value pairs.
func (n *Node) Log(at time.Time, level Level, msg string, attrs ...any) {
	if n == nil {
		return
	}
	e := Entry{Time: at.UTC(), Level: level, Message: msg}
	for i := 0; i+1 < len(attrs); i += 2 {
		if k, ok := attrs[i].(string); ok {
			if e.Attrs == nil {
				e.Attrs = map[string]any{}
			}
			e.Attrs[k] = attrs[i+1]
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.logs = append(n.logs, e)
	n.dirty = true
	if len(n.logs) > maxLogs {
		n.logs = append(n.logs[:0:0], n.logs[len(n.logs)-maxLogs:]...)
	}
}

// Counters returns a copy of the node's counters.
func (n *Node) Counters() map[Metric]int64 {
	out := map[Metric]int64{}
	if n == nil {
		return out
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for k, v := range n.counters {
		out[k] = v
	}
	return out
}

// Logs returns the node's runtime logs, newest first.
func (n *Node) Logs() []Entry {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]Entry, len(n.logs))
	for i, e := range n.logs {
		out[len(n.logs)-1-i] = e
	}
	return out
}

// Registry holds the nodes of every Eventstream, by node id (a
// destination's id, a source's id, a stream's id).
type Registry struct {
	mu    sync.Mutex
	nodes map[string]*Node
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{nodes: map[string]*Node{}} }

// Node returns node id's insights, creating them on first use.
func (r *Registry) Node(id string) *Node {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, ok := r.nodes[id]
	if !ok {
		n = &Node{}
		r.nodes[id] = n
	}
	return n
}
