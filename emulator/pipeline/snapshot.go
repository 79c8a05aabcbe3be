package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
)

// snapshotVersion is the version of the snapshot format.
const snapshotVersion = 1

// ErrSnapshotMismatch is returned (wrapped) by Restore when the snapshot
// was taken with other operators, or is not a snapshot of this format. The
// caller then starts the pipeline afresh (see the restart protocol in the
// package documentation).
var ErrSnapshotMismatch = errors.New("pipeline: snapshot does not match these operators")

type snapshot struct {
	Version   int           `json:"version"`
	Operators string        `json:"operators"` // fingerprint of the operators
	Offsets   []offsetState `json:"offsets"`
	Stats     Stats         `json:"stats"`
	chainState
}

// chainState is the state of a list of stages, each entry naming its stage
// by index.
type chainState struct {
	Stages  []stageState   `json:"stages,omitempty"`
	Rolling []rollingState `json:"rolling,omitempty"` // Aggregate stages
	Buffers []bufferState  `json:"buffers,omitempty"` // sliding and session windows
	Nested  []nestedState  `json:"nested,omitempty"`  // Union and Join
}

type offsetState struct {
	Partition int32 `json:"partition"`
	Next      int64 `json:"next"`
}

type stageState struct {
	Stage   int           `json:"stage"`
	Horizon int64         `json:"horizon"`
	Clocks  []partClock   `json:"clocks"`
	Windows []windowState `json:"windows"`
}

type windowState struct {
	Start  int64        `json:"start"`
	Groups []groupState `json:"groups"`
}

type groupState struct {
	Key  string    `json:"key"`
	Keys []any     `json:"keys,omitempty"`
	Aggs []aggSnap `json:"aggs"`
}

type aggSnap struct {
	N      int64  `json:"n"`
	AllInt bool   `json:"allInt,omitempty"`
	Floats bool   `json:"floats,omitempty"`
	Sum    string `json:"sum,omitempty"`
	Min    string `json:"min,omitempty"`
	Max    string `json:"max,omitempty"`
}

// Snapshot encodes the pipeline's whole state as JSON: the open windows of
// every GroupBy with their partial aggregates, the partition clocks and
// horizon, the counters, and Offsets — the records the state covers. It does
// not change the pipeline. Store it with the rows the pipeline returned
// since the previous snapshot (see the restart protocol in the package
// documentation).
func (p *Pipeline) Snapshot() ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	snap := snapshot{Version: snapshotVersion, Operators: p.fingerprint, Stats: p.stats, Offsets: []offsetState{}}
	for part, next := range p.offsets {
		snap.Offsets = append(snap.Offsets, offsetState{Partition: part, Next: next})
	}
	sort.Slice(snap.Offsets, func(i, j int) bool { return snap.Offsets[i].Partition < snap.Offsets[j].Partition })
	snap.chainState = saveChain(p.stages)
	return json.Marshal(snap)
}

// saveChain encodes the state of stages.
func saveChain(stages []stage) chainState {
	var cs chainState
	for i, st := range stages {
		switch g := st.(type) {
		case *groupByStage:
			cs.Stages = append(cs.Stages, g.state(i))
		case *rollingStage:
			cs.Rolling = append(cs.Rolling, g.state(i))
		case buffered:
			cs.Buffers = append(cs.Buffers, bufferSnapshot(i, g))
		case nested:
			cs.Nested = append(cs.Nested, g.save(i))
		}
	}
	return cs
}

func (s *groupByStage) state(i int) stageState {
	st := stageState{Stage: i, Horizon: s.clk.horizon, Clocks: []partClock{}, Windows: []windowState{}}
	for _, pc := range s.clk.parts {
		st.Clocks = append(st.Clocks, *pc)
	}
	sort.Slice(st.Clocks, func(a, b int) bool { return st.Clocks[a].Partition < st.Clocks[b].Partition })
	for _, w := range s.windows {
		ws := windowState{Start: w.start}
		for _, grp := range w.groups {
			gs := groupState{Key: grp.key, Keys: grp.keys}
			for i, a := range grp.aggs {
				as := aggSnap{N: a.n, AllInt: a.allInt, Floats: a.floats}
				if s.g.Aggregates[i].Fn != Count && a.n > 0 {
					if a.allInt {
						as.Sum = intNumber(a.sumI).encode()
					} else {
						as.Sum = floatNumber(a.sumF).encode()
					}
					as.Min, as.Max = a.min.encode(), a.max.encode()
				}
				gs.Aggs = append(gs.Aggs, as)
			}
			ws.Groups = append(ws.Groups, gs)
		}
		sort.Slice(ws.Groups, func(a, b int) bool { return ws.Groups[a].Key < ws.Groups[b].Key })
		st.Windows = append(st.Windows, ws)
	}
	sort.Slice(st.Windows, func(a, b int) bool { return st.Windows[a].Start < st.Windows[b].Start })
	return st
}

// Restore replaces the pipeline's state with a snapshot taken by a pipeline
// built from the same operators (names aside). On error the pipeline is
// unchanged; a snapshot of other operators fails with ErrSnapshotMismatch.
func (p *Pipeline) Restore(data []byte) error {
	var snap snapshot
	if err := decodeJSON(data, &snap); err != nil {
		return fmt.Errorf("%w: %v", ErrSnapshotMismatch, err)
	}
	if snap.Version != snapshotVersion {
		return fmt.Errorf("%w: version %d, want %d", ErrSnapshotMismatch, snap.Version, snapshotVersion)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if snap.Operators != p.fingerprint {
		return fmt.Errorf("%w: it was taken with other operators", ErrSnapshotMismatch)
	}
	offsets := make(map[int32]int64, len(snap.Offsets))
	for _, o := range snap.Offsets {
		offsets[o.Partition] = o.Next
	}
	stages, err := restoreChain(p.stages, snap.chainState, &p.stats)
	if err != nil {
		return err
	}
	p.stages = stages
	p.offsets = offsets
	p.stats = snap.Stats
	return nil
}

// restoreChain returns stages rebuilt from cs: stages cs has no state for
// start afresh. stages is not changed.
func restoreChain(stages []stage, cs chainState, stats *Stats) ([]stage, error) {
	restored, err := restoreGroupBys(stages, cs.Stages)
	if err != nil {
		return nil, err
	}
	rolled, err := restoreRolling(stages, cs.Rolling)
	if err != nil {
		return nil, err
	}
	bufs, err := restoreBuffers(stages, cs.Buffers)
	if err != nil {
		return nil, err
	}
	nests, err := restoreNested(stages, cs.Nested, stats)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(stages)
	for i, st := range stages {
		switch g := st.(type) {
		case *groupByStage:
			out[i] = restored[i]
			if out[i] == nil {
				out[i] = newGroupByStage(g.g, stats)
			}
		case *rollingStage:
			out[i] = rolled[i]
			if out[i] == nil {
				out[i] = newRollingStage(g.r, stats)
			}
		case buffered:
			out[i] = bufs[i]
		case nested:
			out[i] = nests[i]
		}
	}
	return out, nil
}

// restoreGroupBys rebuilds the tumbling, hopping and snapshot GroupBy
// stages states name, by index.
func restoreGroupBys(stages []stage, states []stageState) (map[int]stage, error) {
	restored := map[int]stage{}
	for _, st := range states {
		if st.Stage < 0 || st.Stage >= len(stages) {
			return nil, fmt.Errorf("%w: stage %d out of range", ErrSnapshotMismatch, st.Stage)
		}
		g, ok := stages[st.Stage].(*groupByStage)
		if !ok {
			return nil, fmt.Errorf("%w: stage %d is not a GroupBy", ErrSnapshotMismatch, st.Stage)
		}
		ng, err := g.restored(st)
		if err != nil {
			return nil, fmt.Errorf("%w: stage %d: %v", ErrSnapshotMismatch, st.Stage, err)
		}
		restored[st.Stage] = ng
	}
	return restored, nil
}

// restoreRolling rebuilds the Aggregate stages states name, by index.
func restoreRolling(stages []stage, states []rollingState) (map[int]stage, error) {
	rolled := map[int]stage{}
	for _, st := range states {
		if st.Stage < 0 || st.Stage >= len(stages) {
			return nil, fmt.Errorf("%w: stage %d out of range", ErrSnapshotMismatch, st.Stage)
		}
		r, ok := stages[st.Stage].(*rollingStage)
		if !ok {
			return nil, fmt.Errorf("%w: stage %d is not an Aggregate", ErrSnapshotMismatch, st.Stage)
		}
		nr, err := r.restored(st)
		if err != nil {
			return nil, fmt.Errorf("%w: stage %d: %v", ErrSnapshotMismatch, st.Stage, err)
		}
		rolled[st.Stage] = nr
	}
	return rolled, nil
}

func (s *groupByStage) restored(st stageState) (*groupByStage, error) {
	ng := newGroupByStage(s.g, s.stats)
	ng.clk.horizon = st.Horizon
	for _, pc := range st.Clocks {
		c := pc
		ng.clk.parts[pc.Partition] = &c
	}
	for _, ws := range st.Windows {
		w := &window{start: ws.Start, groups: map[string]*group{}}
		for _, gs := range ws.Groups {
			if len(gs.Keys) != len(s.g.Keys) || len(gs.Aggs) != len(s.g.Aggregates) {
				return nil, fmt.Errorf("window %d: group shape differs from the operator", ws.Start)
			}
			grp := &group{key: gs.Key, keys: gs.Keys, aggs: make([]aggState, len(gs.Aggs))}
			for i, as := range gs.Aggs {
				a := aggState{n: as.N, allInt: as.AllInt, floats: as.Floats}
				if as.Sum != "" {
					sum, ok1 := decodeNumber(as.Sum)
					mn, ok2 := decodeNumber(as.Min)
					mx, ok3 := decodeNumber(as.Max)
					if !ok1 || !ok2 || !ok3 {
						return nil, fmt.Errorf("window %d: bad aggregate numbers", ws.Start)
					}
					if sum.isInt {
						a.sumI = sum.i
					} else {
						a.sumF = sum.f
					}
					a.min, a.max = mn, mx
				}
				grp.aggs[i] = a
			}
			w.groups[gs.Key] = grp
		}
		ng.windows[ws.Start] = w
	}
	return ng, nil
}
