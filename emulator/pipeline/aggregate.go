package pipeline

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// RollingAggregate is Fabric's Aggregate operator: a rolling aggregate per
// event. Every row passes through at once, unchanged but for one added
// field per aggregate: the aggregate of the field over the rows of the same
// partition (PartitionBy) whose time lies in (t − Duration, t], t being the
// row's own time and the row itself included. Nothing is held back and
// nothing is emitted later; the state is the rows still inside some
// aggregate's duration.
//
// What this follows. Microsoft Learn describes the Eventstream Aggregate
// transformation as calculating "an aggregation (Sum, Minimum, Maximum, or
// Average) every time a new event occurs over a period of time", with
// calculated columns renamed and the aggregation sliced by other dimensions
// ("Explore event streams in Microsoft Fabric", Eventstream transformations;
// "Route data streams based on content": "Support SUM, AVG, MIN, and MAX").
// Its eventstream.json shape, {aggregations: [{aggregationFunction, column,
// alias?, partitionBy?: [column], duration: {value, unit}}]}, is that of
// Stream Analytics' OVER clause, which the Stream Analytics reference marks
// as applying to Fabric Eventstream: AVG(temp) OVER (PARTITION BY id LIMIT
// DURATION(minute, 5)), "how much history from the current row is included"
// (SUM, AVG, MIN and MAX only). The interval is taken open at its start and
// closed at the row, as Stream Analytics' windows are. When alias is absent
// the output is named "<FN>_<field>" with FN one of AVG, SUM, MIN, MAX,
// COUNT (dots in the field replaced by underscores): no Microsoft page states
// the default, and this follows the alias of Microsoft's template node
// ("AVG_columnName" for an Average). Count, which Fabric's function list has
// but the OVER clause does not, is added as it is cheap and exact;
// PercentileContinuous, PercentileDiscrete, StandardDeviation(Population) and
// Variance(Population) are refused by name.
//
// Values, as for GroupBy (see AggFunc): Sum, Min, Max and Avg read the
// numeric values of Field and skip null, missing and non-numeric ones (the
// last counted in Stats.NonNumeric); they are null when no numeric value is
// in range, the current row's own value being null or missing included. Count
// with a field counts the rows in range where it is present and not null;
// without one it counts the rows in range (at least 1, the row itself). Sum,
// Min and Max are longs when every value in range is an integer (and the sum
// fits in 64 bits), doubles otherwise; Avg is a double. Sums are exact (the
// double is the correctly rounded total), so a result does not depend on the
// order rows came in or left.
//
// Time: On names the event-time field (RFC 3339 or epoch milliseconds, as a
// Window's On); empty means arrival time, the Kafka record timestamp, which
// is what Fabric's operator uses (it has no time column). Partitions of
// PartitionBy are compared as GroupBy keys are (1 and 1.0 alike, missing and
// null alike). The stage keeps the largest time it has seen; a row more than
// AllowedLateness behind it is late: it is counted in Stats.Late and taken
// at that horizon (largest time − AllowedLateness) instead of its own time,
// much as Stream Analytics' "adjust" out-of-order policy does. Rows within
// the lateness are aggregated at their own time over the rows seen so far:
// a row that comes later does not revise outputs already given. A row with
// no usable time passes with every aggregate null, is counted in
// Stats.MissingTime and enters no aggregate. Rows are kept only while a
// later row could still count them: for each aggregate, those newer than
// horizon − Duration, so the state is bounded by the rows of
// Duration + AllowedLateness of stream time.
//
// The output field is set on a copy of the row and replaces an input field
// of the same name. Because each row's output depends only on the rows fed
// before it, the output does not depend on how records are split into
// Process calls, and a snapshot restores it exactly.
type RollingAggregate struct {
	Name            string
	Aggregates      []Rolling
	On              string
	AllowedLateness time.Duration
}

// Rolling is one aggregate of a RollingAggregate.
type Rolling struct {
	Fn          AggFunc
	Field       string // the field aggregated; empty for a count of rows
	As          string // the output field; empty means Output's default
	PartitionBy []string
	Duration    time.Duration // how far back from each row's time
}

var rollingNames = map[AggFunc]string{Count: "COUNT", Sum: "SUM", Min: "MIN", Max: "MAX", Avg: "AVG"}

// Output returns the name of the output field: As, or "<FN>_<field>" (AVG,
// SUM, MIN, MAX or COUNT; "COUNT" alone for a count of rows) with dots in
// the field name replaced by underscores.
func (a Rolling) Output() string {
	if a.As != "" {
		return a.As
	}
	name := rollingNames[a.Fn]
	if name == "" {
		name = strings.ToUpper(string(a.Fn))
	}
	if a.Field == "" {
		return name
	}
	return name + "_" + strings.ReplaceAll(a.Field, ".", "_")
}

// Spec returns the canonical JSON shape.
func (r RollingAggregate) Spec() Spec {
	s := Spec{Type: "Aggregate", Name: r.Name, On: r.On}
	if r.AllowedLateness != 0 {
		s.AllowedLateness = r.AllowedLateness.String()
	}
	for _, a := range r.Aggregates {
		s.Aggregates = append(s.Aggregates, AggregateSpec{Fn: string(a.Fn), Field: a.Field, As: a.Output(),
			PartitionBy: a.PartitionBy, Duration: a.Duration.String()})
	}
	return s
}

func (r RollingAggregate) validate(path string) error {
	if len(r.Aggregates) == 0 {
		return invalid(join(path, "aggregates"), "Aggregate needs at least one aggregate")
	}
	outs := map[string]bool{}
	for i, a := range r.Aggregates {
		p := index(join(path, "aggregates"), i)
		switch a.Fn {
		case Count:
		case Sum, Min, Max, Avg:
			if a.Field == "" {
				return invalid(join(p, "field"), "%s needs a field", a.Fn)
			}
		case "":
			return invalid(join(p, "fn"), "required: one of count, sum, min, max, avg")
		default:
			return invalid(join(p, "fn"), "%q is not one of count, sum, min, max, avg", a.Fn)
		}
		if err := uniqueNames(join(p, "partitionBy"), a.PartitionBy); err != nil {
			return err
		}
		if err := checkDuration(join(p, "duration"), a.Duration, true); err != nil {
			return err
		}
		out := a.Output()
		if outs[out] {
			return invalid(join(p, "as"), "%q is the output of another aggregate; give each its own \"as\"", out)
		}
		outs[out] = true
	}
	return checkDuration(join(path, "allowedLateness"), r.AllowedLateness, false)
}

func parseRolling(o obj, name string) (Operator, error) {
	r := RollingAggregate{Name: name}
	raw, ok := o.m["aggregates"]
	if !ok {
		return nil, invalid(join(o.path, "aggregates"), "required: [{fn, field, as, partitionBy, duration}...]")
	}
	list, ok := raw.([]any)
	if !ok || len(list) == 0 {
		return nil, invalid(join(o.path, "aggregates"), "want a non-empty array of {fn, field, as, partitionBy, duration}")
	}
	for i, item := range list {
		p := index(join(o.path, "aggregates"), i)
		am, ok := item.(map[string]any)
		if !ok {
			return nil, invalid(p, "want an object {fn, field, as, partitionBy, duration}")
		}
		ao := obj{m: am, path: p}
		if err := ao.only("fn", "field", "as", "partitionBy", "duration"); err != nil {
			return nil, err
		}
		fn, err := ao.str("fn", true)
		if err != nil {
			return nil, err
		}
		lower := strings.ToLower(fn)
		if refused, ok := refusedFns[lower]; ok {
			return nil, notSupported(join(p, "fn"), refused,
				"Fabric's Aggregate (Stream Analytics' OVER clause) computes Average, Sum, Minimum and Maximum; the emulator adds Count")
		}
		f, ok := aggAliases[lower]
		if !ok {
			return nil, invalid(join(p, "fn"), "%q is not one of count, sum, min, max, avg", fn)
		}
		a := Rolling{Fn: f}
		if a.Field, err = ao.str("field", false); err != nil {
			return nil, err
		}
		if a.As, err = ao.str("as", false); err != nil {
			return nil, err
		}
		if a.PartitionBy, err = ao.strList("partitionBy"); err != nil {
			return nil, err
		}
		if a.Duration, err = ao.duration("duration", true); err != nil {
			return nil, err
		}
		a.As = a.Output()
		r.Aggregates = append(r.Aggregates, a)
	}
	var err error
	if r.On, err = o.str("on", false); err != nil {
		return nil, err
	}
	if _, given := o.m["on"]; given && r.On == "" {
		return nil, invalid(join(o.path, "on"), "must name a field; leave it out for arrival time")
	}
	if r.AllowedLateness, err = o.duration("allowedLateness", false); err != nil {
		return nil, err
	}
	return r, r.validate(o.path)
}

// ---- the stage ----

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

// ---- one partition of one aggregate ----

// series holds the rows of one partition of one aggregate that a later row
// may still count, in time order (rows of equal time in arrival order), and
// a running aggregate over the newest of them: those with time > ws. A row
// at or after every row held, whose interval starts at or after ws, is
// answered from the running aggregate after moving ws up to its interval's
// start; any other row is answered by scanning its interval.
type series struct {
	ts         []int64
	vs         []number // parallel to ts; zero for counts
	ws         int64    // the running window holds the rows with time > ws
	f          int      // index of the first of them
	run        accum
	minq, maxq []int // indices of the running window's suffix minima and maxima
}

func newSeries() *series { return &series{ws: math.MinInt64} }

func (se *series) insert(t int64, v number, numeric bool) {
	p := sort.Search(len(se.ts), func(i int) bool { return se.ts[i] > t })
	se.ts = slices.Insert(se.ts, p, t)
	se.vs = slices.Insert(se.vs, p, v)
	if t <= se.ws { // before the running window
		se.f++
		if numeric {
			for j := range se.minq {
				se.minq[j]++
			}
			for j := range se.maxq {
				se.maxq[j]++
			}
		}
		return
	}
	se.run.add(v, numeric)
	if !numeric {
		return
	}
	if p == len(se.ts)-1 {
		se.push(p)
	} else {
		se.rebuild()
	}
}

// push appends index j to the monotonic queues.
func (se *series) push(j int) {
	v := se.vs[j]
	for len(se.minq) > 0 && cmpNumber(se.vs[se.minq[len(se.minq)-1]], v) >= 0 {
		se.minq = se.minq[:len(se.minq)-1]
	}
	se.minq = append(se.minq, j)
	for len(se.maxq) > 0 && cmpNumber(se.vs[se.maxq[len(se.maxq)-1]], v) <= 0 {
		se.maxq = se.maxq[:len(se.maxq)-1]
	}
	se.maxq = append(se.maxq, j)
}

func (se *series) rebuild() {
	se.minq, se.maxq = se.minq[:0], se.maxq[:0]
	for j := se.f; j < len(se.ts); j++ {
		se.push(j)
	}
}

// slide moves the running window's start up to ws.
func (se *series) slide(ws int64, numeric bool) {
	if ws <= se.ws {
		return
	}
	se.ws = ws
	for se.f < len(se.ts) && se.ts[se.f] <= ws {
		se.run.sub(se.vs[se.f], numeric)
		se.f++
	}
	for len(se.minq) > 0 && se.minq[0] < se.f {
		se.minq = se.minq[1:]
	}
	for len(se.maxq) > 0 && se.maxq[0] < se.f {
		se.maxq = se.maxq[1:]
	}
}

// evict forgets the rows at or before cut, which no later row counts.
func (se *series) evict(cut int64, numeric bool) {
	if len(se.ts) == 0 || se.ts[0] > cut {
		return
	}
	se.slide(cut, numeric)
	k := sort.Search(len(se.ts), func(i int) bool { return se.ts[i] > cut })
	se.ts, se.vs = se.ts[k:], se.vs[k:]
	se.f -= k
	for j := range se.minq {
		se.minq[j] -= k
	}
	for j := range se.maxq {
		se.maxq[j] -= k
	}
}

// query returns the aggregate over the rows with time in (t − d, t].
func (se *series) query(t, d int64, numeric bool) *window1 {
	start := satAdd(t, -d)
	if (len(se.ts) == 0 || t >= se.ts[len(se.ts)-1]) && start >= se.ws {
		se.slide(start, numeric)
		w := &window1{acc: &se.run}
		if numeric && len(se.minq) > 0 {
			w.min, w.max = se.vs[se.minq[0]], se.vs[se.maxq[0]]
		}
		return w
	}
	lo := sort.Search(len(se.ts), func(i int) bool { return se.ts[i] > start })
	hi := sort.Search(len(se.ts), func(i int) bool { return se.ts[i] > t })
	w := &window1{acc: &accum{}}
	for j := lo; j < hi; j++ {
		v := se.vs[j]
		w.acc.add(v, numeric)
		if numeric && (j == lo || cmpNumber(v, w.min) < 0) {
			w.min = v
		}
		if numeric && (j == lo || cmpNumber(v, w.max) > 0) {
			w.max = v
		}
	}
	return w
}

// window1 is one row's interval: its aggregate and, for numbers, its
// extremes.
type window1 struct {
	acc      *accum
	min, max number
}

func (w *window1) result(fn AggFunc) any {
	a := w.acc
	if a == nil {
		a = &accum{}
	}
	if fn == Count {
		return intNumber(a.n).json()
	}
	if a.n == 0 {
		return nil
	}
	switch fn {
	case Sum:
		if a.floats == 0 {
			if a.ints.IsInt64() {
				return intNumber(a.ints.Int64()).json()
			}
			f, _ := new(big.Float).SetInt(&a.ints).Float64()
			return doubleValue(f)
		}
		f, _ := a.total().Float64()
		return doubleValue(f)
	case Avg:
		q := new(big.Float).SetPrec(53).Quo(a.total(), new(big.Float).SetInt64(a.n))
		f, _ := q.Float64()
		return doubleValue(f)
	case Min, Max:
		n := w.max
		if fn == Min {
			n = w.min
		}
		if a.floats > 0 && n.isInt {
			n = floatNumber(float64(n.i))
		}
		return n.json()
	}
	return nil
}

// accum is an exact running sum and count: integers in ints, doubles in fl
// as integer multiples of 2^-1074 (every finite double is one).
type accum struct {
	n      int64
	floats int64 // values that are not integers
	ints   big.Int
	fl     big.Int
}

const subnormalShift = 1074

func (a *accum) add(v number, numeric bool) { a.step(v, numeric, 1) }
func (a *accum) sub(v number, numeric bool) { a.step(v, numeric, -1) }

func (a *accum) step(v number, numeric bool, sign int64) {
	a.n += sign
	if !numeric {
		return
	}
	if v.isInt {
		x := big.NewInt(v.i)
		if sign < 0 {
			a.ints.Sub(&a.ints, x)
		} else {
			a.ints.Add(&a.ints, x)
		}
		return
	}
	a.floats += sign
	x := scaledFloat(v.f)
	if sign < 0 {
		a.fl.Sub(&a.fl, x)
	} else {
		a.fl.Add(&a.fl, x)
	}
}

// total returns the exact sum.
func (a *accum) total() *big.Float {
	t := new(big.Int).Lsh(&a.ints, subnormalShift)
	t.Add(t, &a.fl)
	x := new(big.Float).SetInt(t)
	return x.SetMantExp(x, -subnormalShift)
}

// scaledFloat returns f·2^1074, an integer for every finite double.
func scaledFloat(f float64) *big.Int {
	mant, exp := math.Frexp(f) // f = mant·2^exp, 0.5 <= |mant| < 1
	z := big.NewInt(int64(mant * (1 << 53)))
	if shift := exp - 53 + subnormalShift; shift < 0 {
		return z.Rsh(z, uint(-shift)) // exact: f is a multiple of 2^-1074
	}
	return z.Lsh(z, uint(exp-53+subnormalShift))
}

// ---- snapshots ----

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
