package insights

import (
	"fmt"
	"slices"
	"strings"
)

// State is what is kept of a node across restarts: its counters and its
// runtime logs (oldest first).
type State struct {
	Counters map[Metric]int64 `json:"counters"`
	Logs     []Entry          `json:"logs,omitempty"`
}

// state copies the node's state and clears its dirty mark.
func (n *Node) state() State {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := State{Counters: make(map[Metric]int64, len(n.counters)), Logs: slices.Clone(n.logs)}
	for k, v := range n.counters {
		s.Counters[k] = v
	}
	n.dirty = false
	return s
}

// Changed returns the state of every node changed since the last call, by
// node id, and marks them saved. A node changed again while the caller
// saves is returned by the next call.
func (r *Registry) Changed() map[string]State {
	r.mu.Lock()
	nodes := make(map[string]*Node, len(r.nodes))
	for id, n := range r.nodes {
		nodes[id] = n
	}
	r.mu.Unlock()
	out := map[string]State{}
	for id, n := range nodes {
		n.mu.Lock()
		dirty := n.dirty
		n.mu.Unlock()
		if dirty {
			out[id] = n.state()
		}
	}
	return out
}

// MarkChanged marks node id as changed again (its save failed).
func (r *Registry) MarkChanged(id string) {
	n := r.Node(id)
	n.mu.Lock()
	n.dirty = true
	n.mu.Unlock()
}

// Restore sets node id's state to s (what a previous run saved); counts
// made since are added to it.
func (r *Registry) Restore(id string, s State) {
	n := r.Node(id)
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.counters == nil {
		n.counters = map[Metric]int64{}
	}
	for k, v := range s.Counters {
		if k == WatermarkDelaySeconds {
			if _, set := n.counters[k]; !set {
				n.counters[k] = v
			}
			continue
		}
		n.counters[k] += v
	}
	logs := append(slices.Clone(s.Logs), n.logs...)
	if len(logs) > maxLogs {
		logs = logs[len(logs)-maxLogs:]
	}
	n.logs = logs
}

// ParseLevel reads a level name as Fabric's runtime logs spell it,
// ignoring case.
func ParseLevel(s string) (Level, error) {
	for _, l := range []Level{LevelInformation, LevelWarning, LevelError} {
		if strings.EqualFold(s, string(l)) {
			return l, nil
		}
	}
	return "", fmt.Errorf("%q is not a runtime log level (Information, Warning or Error)", s)
}

// Filter returns the entries whose level is one of levels (all when
// empty) and whose message or attribute values contain keyword, ignoring
// case ("" matches all), in their order.
func Filter(entries []Entry, levels []Level, keyword string) []Entry {
	kw := strings.ToLower(keyword)
	out := []Entry{}
	for _, e := range entries {
		if len(levels) > 0 && !slices.Contains(levels, e.Level) {
			continue
		}
		if kw != "" && !e.contains(kw) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// contains reports whether the entry's message or an attribute's value
// holds kw (lower case).
func (e Entry) contains(kw string) bool {
	if strings.Contains(strings.ToLower(e.Message), kw) {
		return true
	}
	for _, v := range e.Attrs {
		if strings.Contains(strings.ToLower(fmt.Sprint(v)), kw) {
			return true
		}
	}
	return false
}
