package pipeline

import (
	"fmt"
	"math"
	"sort"
)

// bufferState is the snapshot of a sliding or session window stage: its
// clocks and the events it holds.
type bufferState struct {
	Stage   int         `json:"stage"`
	Horizon int64       `json:"horizon"`
	Clocks  []partClock `json:"clocks"`
	Items   []item      `json:"items"`
}

// buffered is a stage whose state is its clocks and the events it holds.
type buffered interface {
	windowed
	buffer() (*clocks, []item)
	fresh() buffered
	load(items []item)
}

func (s *slidingStage) buffer() (*clocks, []item) { return &s.clk, s.items }
func (s *slidingStage) fresh() buffered           { return newSlidingStage(s.g, s.stats) }
func (s *slidingStage) load(items []item) {
	s.items, s.done = items, s.clk.horizon
}

func (s *sessionStage) buffer() (*clocks, []item) { return &s.clk, s.items }
func (s *sessionStage) fresh() buffered           { return newSessionStage(s.g, s.stats) }
func (s *sessionStage) load(items []item)         { s.items = items }

// bufferSnapshot encodes a buffered stage at index i.
func bufferSnapshot(i int, b buffered) bufferState {
	clk, items := b.buffer()
	st := bufferState{Stage: i, Horizon: clk.horizon, Clocks: []partClock{}, Items: append([]item{}, items...)}
	for _, pc := range clk.parts {
		st.Clocks = append(st.Clocks, *pc)
	}
	sort.Slice(st.Clocks, func(a, c int) bool { return st.Clocks[a].Partition < st.Clocks[c].Partition })
	return st
}

// restoreBuffers returns the buffered stages of stages rebuilt from states
// (fresh where a stage has none), by index.
func restoreBuffers(stages []stage, states []bufferState) (map[int]buffered, error) {
	out := map[int]buffered{}
	for _, st := range states {
		if st.Stage < 0 || st.Stage >= len(stages) {
			return nil, fmt.Errorf("%w: stage %d out of range", ErrSnapshotMismatch, st.Stage)
		}
		b, ok := stages[st.Stage].(buffered)
		if !ok {
			return nil, fmt.Errorf("%w: stage %d is not a sliding or session window", ErrSnapshotMismatch, st.Stage)
		}
		if _, dup := out[st.Stage]; dup {
			return nil, fmt.Errorf("%w: stage %d twice", ErrSnapshotMismatch, st.Stage)
		}
		if !sort.SliceIsSorted(st.Items, func(a, c int) bool { return st.Items[a].T < st.Items[c].T }) {
			return nil, fmt.Errorf("%w: stage %d: events out of time order", ErrSnapshotMismatch, st.Stage)
		}
		nb := b.fresh()
		clk, _ := nb.buffer()
		clk.horizon = st.Horizon
		for _, pc := range st.Clocks {
			c := pc
			clk.parts[pc.Partition] = &c
		}
		for i := range st.Items {
			if st.Items[i].Row == nil || st.Items[i].T == math.MinInt64 {
				return nil, fmt.Errorf("%w: stage %d: an event without a row", ErrSnapshotMismatch, st.Stage)
			}
		}
		nb.load(st.Items)
		out[st.Stage] = nb
	}
	for i, s := range stages {
		if b, ok := s.(buffered); ok && out[i] == nil {
			out[i] = b.fresh()
		}
	}
	return out, nil
}
