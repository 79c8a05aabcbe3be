package pipeline

import (
	"fmt"
	"slices"
	"sort"
)

type rollingState struct {
	Stage   int           `json:"stage"`
	Seen    bool          `json:"seen,omitempty"`
	MaxTime int64         `json:"maxTime,omitempty"`
	Series  []seriesState `json:"series"`
}

type seriesState struct {
	Agg    int      `json:"agg"`
	Key    string   `json:"key"`
	Start  int64    `json:"start"`            // the running window holds the rows after it
	Times  []int64  `json:"times"`            // Unix nanoseconds, in order
	Values []string `json:"values,omitempty"` // encoded numbers; none for a count
}

func (s *rollingStage) state(stage int) rollingState {
	st := rollingState{Stage: stage, Seen: s.seen, MaxTime: s.maxT, Series: []seriesState{}}
	for i, a := range s.r.Aggregates {
		keys := make([]string, 0, len(s.series[i]))
		for k := range s.series[i] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			se := s.series[i][k]
			if len(se.ts) == 0 { // as good as absent
				continue
			}
			ss := seriesState{Agg: i, Key: k, Start: se.ws, Times: slices.Clone(se.ts)}
			if a.Fn != Count {
				for _, v := range se.vs {
					ss.Values = append(ss.Values, v.encode())
				}
			}
			st.Series = append(st.Series, ss)
		}
	}
	return st
}

func (s *rollingStage) restored(st rollingState) (*rollingStage, error) {
	ns := newRollingStage(s.r, s.stats)
	ns.seen, ns.maxT = st.Seen, st.MaxTime
	for _, ss := range st.Series {
		if ss.Agg < 0 || ss.Agg >= len(s.r.Aggregates) {
			return nil, fmt.Errorf("aggregate %d out of range", ss.Agg)
		}
		numeric := s.r.Aggregates[ss.Agg].Fn != Count
		if _, dup := ns.series[ss.Agg][ss.Key]; dup || len(ss.Times) == 0 {
			return nil, fmt.Errorf("aggregate %d: partition %s repeated or empty", ss.Agg, ss.Key)
		}
		if numeric != (len(ss.Values) > 0) || (numeric && len(ss.Values) != len(ss.Times)) {
			return nil, fmt.Errorf("aggregate %d: values do not match times", ss.Agg)
		}
		se := &series{ws: ss.Start, ts: slices.Clone(ss.Times), vs: make([]number, len(ss.Times))}
		for j, t := range se.ts {
			if j > 0 && t < se.ts[j-1] {
				return nil, fmt.Errorf("aggregate %d: times out of order", ss.Agg)
			}
			if numeric {
				v, ok := decodeNumber(ss.Values[j])
				if !ok {
					return nil, fmt.Errorf("aggregate %d: bad value %q", ss.Agg, ss.Values[j])
				}
				se.vs[j] = v
			}
		}
		se.f = sort.Search(len(se.ts), func(i int) bool { return se.ts[i] > se.ws })
		for j := se.f; j < len(se.ts); j++ {
			se.run.add(se.vs[j], numeric)
		}
		if numeric {
			se.rebuild()
		}
		ns.series[ss.Agg][ss.Key] = se
		ns.live++
	}
	return ns, nil
}
