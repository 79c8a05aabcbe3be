package pipeline

import (
	"errors"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// JoinKind names the kind of a Join.
type JoinKind string

// The join kinds Fabric has.
const (
	InnerJoin     JoinKind = "inner"
	LeftOuterJoin JoinKind = "leftouter"
)

// JoinOn pairs a field of the left input with one of the right input.
type JoinOn struct {
	Left, Right string
}

// Join is a temporal join of two streams, Azure Stream Analytics' JOIN ...
// ON l.a = r.b AND DATEDIFF(...) BETWEEN −Duration AND Duration: a left row
// and a right row are joined when every On pair holds equal values (null
// and missing never equal anything) and their times are at most Duration
// apart. The time of a row is its record time: the Kafka record timestamp
// (arrival time), or for a GroupBy's row the last instant of its window.
// Left and Right are the chains before each input (see Union).
//
// A pair comes out when its later row arrives: the left row's fields, then
// the right row's, a right field whose name the left row has taken written
// as name + "_right". A LeftOuter join also passes on every left row that
// no right row joined, alone, once the horizon (see Windows and time)
// passes its time + Duration. A row whose time is before the horizon is
// late: counted in Stats.Late and dropped. The rows of each side are held
// until the horizon passes their time + Duration, and are part of the
// snapshot.
type Join struct {
	Name        string
	Kind        JoinKind
	On          []JoinOn
	Duration    time.Duration
	Left, Right []Operator
	// AllowedLateness holds the horizon back, as a window's does.
	AllowedLateness time.Duration
}

// Spec returns the canonical JSON shape.
func (j Join) Spec() Spec {
	s := Spec{Type: "Join", Name: j.Name, JoinType: string(j.Kind), Duration: j.Duration.String(),
		Inputs: inputSpecs([][]Operator{j.Left, j.Right})}
	for _, on := range j.On {
		s.JoinOn = append(s.JoinOn, JoinOnSpec(on))
	}
	if j.AllowedLateness != 0 {
		s.AllowedLateness = j.AllowedLateness.String()
	}
	return s
}

func (j Join) validate(path string) error {
	switch j.Kind {
	case InnerJoin, LeftOuterJoin:
	default:
		return invalid(join(path, "joinType"), "%q is not Inner or LeftOuter", j.Kind)
	}
	for i, on := range j.On {
		if on.Left == "" || on.Right == "" {
			return invalid(index(join(path, "joinOn"), i), "want {left, right} field names")
		}
	}
	if err := checkDuration(join(path, "duration"), j.Duration, true); err != nil {
		return err
	}
	if err := checkDuration(join(path, "allowedLateness"), j.AllowedLateness, false); err != nil {
		return err
	}
	return validateInputs([][]Operator{j.Left, j.Right}, path)
}

// joinItem is a row a Join holds, with its time; Matched is set on a left
// row once a right row joined it.
type joinItem struct {
	T       int64    `json:"t"`
	Row     rows.Row `json:"row"`
	Matched bool     `json:"matched,omitempty"`
}

// joinStage is a Join.
type joinStage struct {
	j     Join
	ins   []chain // left, right
	clk   clocks
	held  [2][]joinItem // left, right, in time order
	stats *Stats
}

func newJoinStage(j Join, path string, stats *Stats) (*joinStage, error) {
	ins, err := buildInputs([][]Operator{j.Left, j.Right}, path, stats)
	if err != nil {
		return nil, err
	}
	return j.stage(ins, stats), nil
}

func (j Join) stage(ins []chain, stats *Stats) *joinStage {
	return &joinStage{j: j, ins: ins, clk: newClocks(j.AllowedLateness), stats: stats}
}

func (s *joinStage) clock() *clocks { return &s.clk }

func (s *joinStage) process(ev Event, emit func(Event)) {
	for side, in := range s.ins {
		in.push(0, ev, func(e Event) { s.arrive(side, e, emit) })
	}
}

func (s *joinStage) advance(now int64, emit func(Event)) {
	for side, in := range s.ins {
		in.advance(now, func(e Event) { s.arrive(side, e, emit) })
	}
	if s.clk.wall(now) {
		s.close(emit)
	}
}

// arrive joins a row of one side with the rows held on the other, then
// holds it.
func (s *joinStage) arrive(side int, e Event, emit func(Event)) {
	t, ok := timeNanos(e.Timestamp)
	if !ok {
		s.stats.MissingTime++
		return
	}
	if t < s.clk.horizon {
		s.stats.Late++
	} else {
		it := joinItem{T: t, Row: e.Row}
		d := int64(s.j.Duration)
		other := s.held[1-side]
		for i := range other {
			o := &other[i]
			if o.T < t-d || o.T > t+d {
				continue
			}
			l, r := &it, o
			if side == 1 {
				l, r = o, &it
			}
			if s.matches(l.Row, r.Row) {
				l.Matched = true
				emit(Event{Row: joinRows(l.Row, r.Row), Timestamp: time.Unix(0, max(l.T, r.T)).UTC(), Partition: e.Partition, Offset: -1})
			}
		}
		held := s.held[side]
		i := sort.Search(len(held), func(i int) bool { return held[i].T > t })
		held = append(held, joinItem{})
		copy(held[i+1:], held[i:])
		held[i] = it
		s.held[side] = held
	}
	if s.clk.observe(e.Partition, t, e.Timestamp) {
		s.close(emit)
	}
}

// matches reports whether every On pair holds equal, non-null values.
func (s *joinStage) matches(l, r rows.Row) bool {
	for _, on := range s.j.On {
		lv, lok := lookup(l, on.Left)
		rv, rok := lookup(r, on.Right)
		if !lok || !rok || canonical(normalize(lv)) != canonical(normalize(rv)) {
			return false
		}
	}
	return true
}

// joinRows is the left row's fields, then the right row's (name + "_right"
// when the left row has the name).
func joinRows(l, r rows.Row) rows.Row {
	out := make(rows.Row, len(l)+len(r))
	for k, v := range l {
		out[k] = v
	}
	for k, v := range r {
		if _, taken := l[k]; taken {
			k = strings.TrimSuffix(k, "_right") + "_right"
		}
		out[k] = v
	}
	return out
}

// close passes on the unmatched left rows of a LeftOuter join the horizon
// has passed, and forgets the rows no later row can join.
func (s *joinStage) close(emit func(Event)) {
	d := int64(s.j.Duration)
	for side := range s.held {
		keep := s.held[side][:0]
		for _, it := range s.held[side] {
			if satAdd(it.T, d) >= s.clk.horizon {
				keep = append(keep, it)
				continue
			}
			if side == 0 && s.j.Kind == LeftOuterJoin && !it.Matched {
				emit(Event{Row: it.Row, Timestamp: time.Unix(0, it.T).UTC(), Offset: -1})
			}
		}
		s.held[side] = keep
	}
}

// nextEnd returns the horizon at which the earliest unmatched left row of
// a LeftOuter join is passed on.
func (s *joinStage) nextEnd() (int64, bool) {
	first := int64(math.MaxInt64)
	if s.j.Kind == LeftOuterJoin {
		for _, it := range s.held[0] {
			if !it.Matched {
				first = min(first, satAdd(it.T, int64(s.j.Duration)+1))
			}
		}
	}
	return first, first != math.MaxInt64
}

// joinState is the state of a Join besides its inputs.
type joinState struct {
	Horizon int64       `json:"horizon"`
	Clocks  []partClock `json:"clocks"`
	Left    []joinItem  `json:"left"`
	Right   []joinItem  `json:"right"`
}

func (s *joinStage) inputs() []chain { return s.ins }

func (s *joinStage) save(i int) nestedState {
	js := &joinState{Horizon: s.clk.horizon, Clocks: []partClock{},
		Left: append([]joinItem{}, s.held[0]...), Right: append([]joinItem{}, s.held[1]...)}
	for _, pc := range s.clk.parts {
		js.Clocks = append(js.Clocks, *pc)
	}
	sort.Slice(js.Clocks, func(a, b int) bool { return js.Clocks[a].Partition < js.Clocks[b].Partition })
	return nestedState{Stage: i, Inputs: saveInputs(s.ins), Join: js}
}

func (s *joinStage) restored(ns nestedState, inputs []chain) (stage, error) {
	js := ns.Join
	if js == nil {
		return nil, errNoJoinState
	}
	n := s.j.stage(inputs, s.stats)
	n.clk.horizon = js.Horizon
	for _, pc := range js.Clocks {
		c := pc
		n.clk.parts[pc.Partition] = &c
	}
	for side, items := range [][]joinItem{js.Left, js.Right} {
		if !sort.SliceIsSorted(items, func(a, b int) bool { return items[a].T < items[b].T }) {
			return nil, errJoinOrder
		}
		n.held[side] = items
	}
	return n, nil
}

func (s *joinStage) fresh(inputs []chain) stage { return s.j.stage(inputs, s.stats) }

var (
	errNoJoinState = errors.New("a Join without its rows")
	errJoinOrder   = errors.New("a Join's rows out of time order")
)
