package pipeline

import (
	"math"
	"sort"
)

// sessionStage is a GroupBy over a session window. Per value of the
// window's PartitionBy field, events form sessions: a session starts with
// an event, takes every next event earlier than its last event + Timeout
// and earlier than its cut (the first multiple of MaxDuration from the
// epoch at least MaxDuration after its start), and ends at the earlier of
// last + Timeout and the cut. A session closes when the horizon reaches its
// end; it is then emitted, one row per group of its events.
type sessionStage struct {
	g     GroupBy
	clk   clocks
	items []item // events of sessions not yet emitted, in time order
	stats *Stats
}

// session is one session of one partition value.
type session struct {
	start, end int64
	items      []item
}

func newSessionStage(g GroupBy, stats *Stats) *sessionStage {
	return &sessionStage{g: g, clk: newClocks(g.Window.AllowedLateness), stats: stats}
}

func (s *sessionStage) clock() *clocks { return &s.clk }

// partOf returns the canonical value of row's PartitionBy field.
func (s *sessionStage) partOf(row map[string]any) string {
	if s.g.Window.PartitionBy == "" {
		return ""
	}
	v, _ := lookup(row, s.g.Window.PartitionBy)
	return canonical(normalize(v))
}

func (s *sessionStage) process(ev Event, emit func(Event)) {
	t, ok := s.g.Window.timeOf(ev)
	if !ok {
		s.stats.MissingTime++
		return
	}
	_, nn := s.g.inputsOf(ev.Row)
	s.stats.NonNumeric += nn
	if t < s.clk.horizon && !s.openAt(s.partOf(ev.Row), t) {
		s.stats.Late++ // before the horizon, outside the open session
	} else {
		s.items = insertItem(s.items, item{T: t, Row: ev.Row})
	}
	if s.clk.observe(ev.Partition, t, ev.Timestamp) {
		s.close(emit)
	}
}

// openAt reports whether partition value part has an open session that
// started at or before t.
func (s *sessionStage) openAt(part string, t int64) bool {
	for _, it := range s.items {
		if it.T > t {
			return false
		}
		if s.partOf(it.Row) == part {
			return true
		}
	}
	return false
}

func (s *sessionStage) advance(now int64, emit func(Event)) {
	if s.clk.wall(now) {
		s.close(emit)
	}
}

// byPart splits the held events by partition value, each in time order.
func (s *sessionStage) byPart() map[string][]item {
	out := map[string][]item{}
	for _, it := range s.items {
		p := s.partOf(it.Row)
		out[p] = append(out[p], it)
	}
	return out
}

// sessions cuts one partition value's events into sessions.
func (s *sessionStage) sessions(items []item) []session {
	timeout, maxDur := int64(s.g.Window.Timeout), int64(s.g.Window.MaxDuration)
	var out []session
	for _, it := range items {
		if n := len(out); n > 0 {
			cur := &out[n-1]
			last := cur.items[len(cur.items)-1].T
			if it.T < satAdd(last, timeout) && it.T < cut(cur.start, maxDur) {
				cur.items = append(cur.items, it)
				cur.end = min(satAdd(it.T, timeout), cut(cur.start, maxDur))
				continue
			}
		}
		out = append(out, session{start: it.T, end: min(satAdd(it.T, timeout), cut(it.T, maxDur)), items: []item{it}})
	}
	return out
}

// cut is the first multiple of maxDur at least maxDur after start: Stream
// Analytics checks a session's length at every multiple of its maximum
// duration.
func cut(start, maxDur int64) int64 {
	return (floorDiv(satAdd(start, maxDur-1), maxDur) + 1) * maxDur
}

// close emits the sessions the horizon has passed and forgets their events.
func (s *sessionStage) close(emit func(Event)) {
	var out []pending
	var keep []item
	for part, items := range s.byPart() {
		for _, ss := range s.sessions(items) {
			if !s.clk.closed(ss.end) {
				keep = append(keep, ss.items...)
				continue
			}
			keys, groups := s.g.groupItems(ss.items)
			for _, k := range keys {
				out = append(out, pending{start: ss.start, end: ss.end, at: ss.end - 1, part: part, key: k,
					row: s.g.windowRow(ss.start, ss.end, groups[k])})
			}
		}
	}
	sort.SliceStable(keep, func(i, j int) bool { return keep[i].T < keep[j].T })
	s.items = keep
	emitPending(out, s.stats, emit)
}

// nextEnd returns the earliest end of an open session.
func (s *sessionStage) nextEnd() (int64, bool) {
	first := int64(math.MaxInt64)
	for _, items := range s.byPart() {
		if ss := s.sessions(items); len(ss) > 0 {
			first = min(first, ss[0].end)
		}
	}
	return first, first != math.MaxInt64
}
