package pipeline

import (
	"encoding/json"
	"math"
	"slices"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// rollingStage is a RollingAggregate.
type rollingStage struct {
	r      RollingAggregate
	stats  *Stats
	seen   bool
	maxT   int64                // the largest time seen
	series []map[string]*series // per aggregate, by canonical partition key
	// Sweeps drop expired rows of partitions no row has touched lately;
	// they never change an output.
	live       int
	sinceSweep int
	sweptAt    int64
	minDur     int64
}

func newRollingStage(r RollingAggregate, stats *Stats) *rollingStage {
	s := &rollingStage{r: r, stats: stats, series: make([]map[string]*series, len(r.Aggregates)), sweptAt: math.MinInt64, minDur: math.MaxInt64}
	for i, a := range r.Aggregates {
		s.series[i] = map[string]*series{}
		s.minDur = min(s.minDur, int64(a.Duration))
	}
	return s
}

// horizon is the time below which rows are late.
func (s *rollingStage) horizon() (int64, bool) {
	if !s.seen {
		return 0, false
	}
	return satAdd(s.maxT, -int64(s.r.AllowedLateness)), true
}

func (s *rollingStage) process(ev Event, emit func(Event)) {
	out := make(rows.Row, len(ev.Row)+len(s.r.Aggregates))
	for k, v := range ev.Row {
		out[k] = v
	}
	t, ok := Window{On: s.r.On}.timeOf(ev)
	if !ok {
		s.stats.MissingTime++
		for _, a := range s.r.Aggregates {
			out[a.Output()] = nil
		}
		ev.Row = out
		emit(ev)
		return
	}
	if h, ok := s.horizon(); ok && t < h {
		s.stats.Late++
		t = h
	}
	if !s.seen || t > s.maxT {
		s.maxT, s.seen = t, true
	}
	h, _ := s.horizon()
	var counted []string // fields already counted non-numeric in this row
	results := make([]any, len(s.r.Aggregates))
	for i, a := range s.r.Aggregates {
		in := entryIn{contributes: a.Field == ""}
		if a.Field != "" {
			v, present := lookup(ev.Row, a.Field)
			switch {
			case a.Fn == Count:
				in.contributes = present
			case present:
				in.num, in.contributes = toNumber(v)
				if !in.contributes && !slices.Contains(counted, a.Field) {
					s.stats.NonNumeric++
					counted = append(counted, a.Field)
				}
			}
		}
		results[i] = s.apply(i, s.keyOf(ev.Row, a.PartitionBy), t, h, in)
	}
	for i, a := range s.r.Aggregates {
		out[a.Output()] = results[i]
	}
	s.sweep(h)
	ev.Row = out
	emit(ev)
}

func (s *rollingStage) advance(int64, func(Event)) {}

func (s *rollingStage) keyOf(row rows.Row, fields []string) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		v, _ := lookup(row, f)
		parts[i] = canonical(normalize(v))
	}
	raw, _ := json.Marshal(parts)
	return string(raw)
}

type entryIn struct {
	contributes bool
	num         number
}

// apply adds a row's value at time t to aggregate i's partition key and
// returns the aggregate over (t − duration, t].
func (s *rollingStage) apply(i int, key string, t, horizon int64, in entryIn) any {
	a := s.r.Aggregates[i]
	d := int64(a.Duration)
	numeric := a.Fn != Count
	se := s.series[i][key]
	if se != nil {
		se.evict(satAdd(horizon, -d), numeric)
	}
	if in.contributes && se == nil && s.live >= s.stats.groupLimit() {
		s.stats.GroupsOverLimit++
		return nil
	}
	if in.contributes {
		if se == nil {
			se = newSeries()
			s.series[i][key] = se
			s.live++
		}
		se.insert(t, in.num, numeric)
	}
	if se == nil {
		return (&window1{}).result(a.Fn)
	}
	return se.query(t, d, numeric).result(a.Fn)
}

// sweep evicts expired rows everywhere once the horizon has moved by the
// shortest duration and at least as many rows as there are partitions have
// come since the last sweep, so that it costs O(1) a row.
func (s *rollingStage) sweep(horizon int64) {
	s.sinceSweep++
	if s.sinceSweep < s.live || (s.sweptAt != math.MinInt64 && horizon-s.sweptAt < s.minDur) {
		return
	}
	for i, a := range s.r.Aggregates {
		cut := satAdd(horizon, -int64(a.Duration))
		for k, se := range s.series[i] {
			se.evict(cut, a.Fn != Count)
			if len(se.ts) == 0 {
				delete(s.series[i], k)
				s.live--
			}
		}
	}
	s.sweptAt, s.sinceSweep = horizon, 0
}
