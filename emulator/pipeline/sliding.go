package pipeline

import (
	"math"
	"slices"
)

// slidingStage is a GroupBy over a sliding window: per group, one row at
// every instant T at which an event of the group enters the window (T is
// its time) or leaves it (T is its time + duration), over the group's
// events in (T − duration, T], when there are any.
type slidingStage struct {
	g     GroupBy
	clk   clocks
	items []item // events with time ≥ horizon − duration, in time order
	done  int64  // the horizon up to which instants have been emitted
	stats *Stats
}

func newSlidingStage(g GroupBy, stats *Stats) *slidingStage {
	return &slidingStage{g: g, clk: newClocks(g.Window.AllowedLateness), done: math.MinInt64, stats: stats}
}

func (s *slidingStage) clock() *clocks { return &s.clk }

func (s *slidingStage) process(ev Event, emit func(Event)) {
	t, ok := s.g.Window.timeOf(ev)
	if !ok {
		s.stats.MissingTime++
		return
	}
	_, nn := s.g.inputsOf(ev.Row)
	s.stats.NonNumeric += nn
	if t < s.clk.horizon {
		s.stats.Late++ // its entry instant has been emitted
	} else {
		s.items = insertItem(s.items, item{T: t, Row: ev.Row})
	}
	if s.clk.observe(ev.Partition, t, ev.Timestamp) {
		s.close(emit)
	}
}

func (s *slidingStage) advance(now int64, emit func(Event)) {
	if s.clk.wall(now) {
		s.close(emit)
	}
}

// close emits, per group, the instants in [done, horizon) and forgets the
// events no later instant can hold.
func (s *slidingStage) close(emit func(Event)) {
	lo, hi, d := s.done, s.clk.horizon, int64(s.g.Window.Duration)
	s.done = hi
	byKey := map[string][]item{}
	for _, it := range s.items {
		k, _ := s.g.keyOf(it.Row)
		byKey[k] = append(byKey[k], it)
	}
	var out []pending
	for key, items := range byKey {
		for _, at := range instants(items, d, lo, hi) {
			var in []item
			for _, it := range items {
				if it.T > at-d && it.T <= at {
					in = append(in, it)
				}
			}
			if len(in) == 0 {
				continue
			}
			_, groups := s.g.groupItems(in)
			out = append(out, pending{start: at - d, end: at, at: at, key: key, row: s.g.windowRow(at-d, at, groups[key])})
		}
	}
	emitPending(out, s.stats, emit)
	keep := s.items[:0]
	for _, it := range s.items {
		if it.T >= satAdd(hi, -d) {
			keep = append(keep, it)
		}
	}
	s.items = keep
}

// instants returns the distinct entry and exit instants of items in
// [lo, hi), in order.
func instants(items []item, d, lo, hi int64) []int64 {
	var out []int64
	for _, it := range items {
		for _, at := range []int64{it.T, satAdd(it.T, d)} {
			if at >= lo && at < hi {
				out = append(out, at)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// nextEnd returns the horizon that closes the earliest instant not yet
// emitted.
func (s *slidingStage) nextEnd() (int64, bool) {
	first := int64(math.MaxInt64)
	for _, it := range s.items {
		for _, at := range []int64{it.T, satAdd(it.T, int64(s.g.Window.Duration))} {
			if at >= s.done {
				first = min(first, at)
			}
		}
	}
	return satAdd(first, 1), first != math.MaxInt64
}
