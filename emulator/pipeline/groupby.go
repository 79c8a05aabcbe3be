package pipeline

import (
	"encoding/json"
	"math"
	"sort"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// groupByStage is a GroupBy: open windows, each holding groups by key.
type groupByStage struct {
	g       GroupBy
	clk     clocks
	windows map[int64]*window // by start
	stats   *Stats
}

type window struct {
	start  int64
	groups map[string]*group // by canonical key
}

type group struct {
	key  string
	keys []any // normalized key values, first seen
	aggs []aggState
}

// aggState accumulates one aggregate of one group in one window.
type aggState struct {
	n        int64 // values counted (count) or numeric values seen
	allInt   bool  // every numeric value so far was an integer and sumI did not overflow
	floats   bool  // some numeric value was not an integer
	sumI     int64
	sumF     float64
	min, max number
}

// aggInput is one row's value for one aggregate, read once per row.
type aggInput struct {
	present bool
	num     number
	isNum   bool
}

func newGroupByStage(g GroupBy, stats *Stats) *groupByStage {
	return &groupByStage{g: g, clk: newClocks(g.Window.AllowedLateness), windows: map[int64]*window{}, stats: stats}
}

func (s *groupByStage) clock() *clocks { return &s.clk }

func (s *groupByStage) process(ev Event, emit func(Event)) {
	t, ok := s.g.Window.timeOf(ev)
	if !ok {
		s.stats.MissingTime++
		return
	}
	keyVals := make([]any, len(s.g.Keys))
	keyParts := make([]string, len(s.g.Keys))
	for i, k := range s.g.Keys {
		v, _ := lookup(ev.Row, k)
		keyVals[i] = normalize(v)
		keyParts[i] = canonical(keyVals[i])
	}
	keyRaw, _ := json.Marshal(keyParts)
	key := string(keyRaw)
	inputs := make([]aggInput, len(s.g.Aggregates))
	for i, a := range s.g.Aggregates {
		if a.Field == "" {
			continue
		}
		v, present := lookup(ev.Row, a.Field)
		inputs[i].present = present
		if present && a.Fn != Count {
			inputs[i].num, inputs[i].isNum = toNumber(v)
			if !inputs[i].isNum && !s.countedBefore(i) {
				s.stats.NonNumeric++ // once per row and field
			}
		}
	}
	dur := s.g.Window.span()
	late, over := false, false
	s.g.Window.forEach(t, func(start int64) {
		if s.clk.closed(start + dur) {
			late = true
			return
		}
		w := s.windows[start]
		if w == nil {
			w = &window{start: start, groups: map[string]*group{}}
			s.windows[start] = w
		}
		grp := w.groups[key]
		if grp == nil && s.heldGroups() >= s.stats.groupLimit() {
			over = true
			return
		}
		if grp == nil {
			grp = &group{key: key, keys: keyVals, aggs: make([]aggState, len(s.g.Aggregates))}
			for i := range grp.aggs {
				grp.aggs[i].allInt = true
			}
			w.groups[key] = grp
		}
		for i, a := range s.g.Aggregates {
			grp.aggs[i].add(a, inputs[i])
		}
	})
	if late {
		s.stats.Late++
	}
	if over {
		s.stats.GroupsOverLimit++
	}
	arrival := ev.Timestamp
	if s.clk.observe(ev.Partition, t, arrival) {
		s.close(emit)
	}
}

// countedBefore reports whether an earlier numeric aggregate reads the same
// field as aggregate i.
func (s *groupByStage) countedBefore(i int) bool {
	for _, a := range s.g.Aggregates[:i] {
		if a.Fn != Count && a.Field == s.g.Aggregates[i].Field {
			return true
		}
	}
	return false
}

func (s *groupByStage) advance(now int64, emit func(Event)) {
	if s.clk.wall(now) {
		s.close(emit)
	}
}

// close emits every window the horizon has passed, in order of end, start
// and key, and forgets them.
func (s *groupByStage) close(emit func(Event)) {
	dur := s.g.Window.span()
	var done []*window
	for _, w := range s.windows {
		if s.clk.closed(w.start + dur) {
			done = append(done, w)
		}
	}
	sort.Slice(done, func(i, j int) bool { return done[i].start < done[j].start })
	for _, w := range done {
		delete(s.windows, w.start)
		keys := make([]string, 0, len(w.groups))
		for k := range w.groups {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		end := w.start + dur
		outEnd := end
		if s.g.Window.Kind == Snapshot {
			outEnd = w.start // a snapshot window is one instant
		}
		for _, k := range keys {
			s.stats.WindowsEmitted++
			// The row's record time is the window's last instant, as in Flink,
			// so that a later GroupBy on arrival time rolls windows up into
			// the window that contains them.
			emit(Event{Row: s.row(w.start, outEnd, w.groups[k]), Timestamp: time.Unix(0, end-1).UTC(), Offset: -1})
		}
	}
}

func (s *groupByStage) row(start, end int64, grp *group) rows.Row {
	row := make(rows.Row, 3+len(s.g.Keys)+len(s.g.Aggregates))
	row[FieldWindowStart] = formatTime(start)
	row[FieldWindowEnd] = formatTime(end)
	row[FieldSeedWindowStart] = formatTime(start)
	for i, k := range s.g.Keys {
		row[k] = grp.keys[i]
	}
	for i, a := range s.g.Aggregates {
		row[a.Output()] = grp.aggs[i].result(a)
	}
	return row
}

// nextEnd returns the earliest end of an open window.
func (s *groupByStage) nextEnd() (int64, bool) {
	first := int64(math.MaxInt64)
	for start := range s.windows {
		first = min(first, start)
	}
	return first + s.g.Window.span(), len(s.windows) > 0
}

func (a *aggState) add(agg Aggregate, in aggInput) {
	if agg.Fn == Count {
		if agg.Field == "" || in.present {
			a.n++
		}
		return
	}
	if !in.isNum {
		return
	}
	v := in.num
	if a.n == 0 {
		a.min, a.max = v, v
	} else {
		if cmpNumber(v, a.min) < 0 {
			a.min = v
		}
		if cmpNumber(v, a.max) > 0 {
			a.max = v
		}
	}
	a.n++
	if !v.isInt {
		a.floats = true
	}
	if a.allInt && v.isInt {
		if s := a.sumI + v.i; (v.i > 0 && s < a.sumI) || (v.i < 0 && s > a.sumI) {
			a.allInt = false
			a.sumF = float64(a.sumI) + float64(v.i)
		} else {
			a.sumI = s
		}
		return
	}
	if a.allInt {
		a.allInt = false
		a.sumF = float64(a.sumI)
	}
	a.sumF += v.float()
}

func (a *aggState) result(agg Aggregate) any {
	switch agg.Fn {
	case Count:
		return intNumber(a.n).json()
	}
	if a.n == 0 {
		return nil
	}
	switch agg.Fn {
	case Sum:
		if a.allInt {
			return intNumber(a.sumI).json()
		}
		return doubleValue(a.sumF)
	case Min:
		return a.kind(a.min).json()
	case Max:
		return a.kind(a.max).json()
	case Avg:
		if a.allInt {
			return doubleValue(float64(a.sumI) / float64(a.n))
		}
		return doubleValue(a.sumF / float64(a.n))
	}
	return nil
}

// kind renders min and max as doubles once any value aggregated was not an
// integer, so that a column keeps one type within a window.
func (a *aggState) kind(n number) number {
	if !a.floats || !n.isInt {
		return n
	}
	return floatNumber(float64(n.i))
}
