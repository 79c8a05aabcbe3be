package eventstream

import (
	"slices"
	"strings"
)

// IsPaused reports whether the node id (a source, destination or stream) is paused.
func (m Model) IsPaused(id string) bool {
	return slices.Contains(m.Paused, strings.ToLower(id))
}

// StreamPaused reports whether the whole Eventstream is paused.
func (m Model) StreamPaused() bool {
	return len(m.Streams) > 0 && m.IsPaused(m.Streams[0].ID)
}

// SetPaused adds (pause) or removes ids from the paused set.
func (m *Model) SetPaused(pause bool, ids ...string) {
	for _, id := range ids {
		id = strings.ToLower(id)
		m.Paused = slices.DeleteFunc(m.Paused, func(p string) bool { return p == id })
		if pause {
			m.Paused = append(m.Paused, id)
		}
	}
}

// SourcePaused reports whether a produce addressed to ds (a stream id or a
// CustomEndpoint source id) of stream streamID must be refused: the source
// is paused, the whole Eventstream is, or every CustomEndpoint source
// feeding the stream is.
func (m Model) SourcePaused(ds, streamID string) bool {
	if len(m.Paused) == 0 {
		return false
	}
	if m.IsPaused(ds) || m.IsPaused(streamID) {
		return true
	}
	if !strings.EqualFold(ds, streamID) {
		return false
	}
	srcs := m.CustomSources()
	for _, s := range srcs {
		if !m.IsPaused(s) {
			return false
		}
	}
	return len(srcs) > 0
}
