package pipeline

import (
	"math"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// timeOf returns the time an event has on this window's time axis: the
// field named by On (an RFC 3339 string or epoch milliseconds), or the
// record timestamp when On is empty. ok is false when there is none.
func (w Window) timeOf(ev Event) (int64, bool) {
	if w.On == "" {
		return timeNanos(ev.Timestamp)
	}
	v, ok := lookup(ev.Row, w.On)
	if !ok {
		return 0, false
	}
	return eventTime(v)
}

// forEach calls fn with the start of every window covering t, latest first
// (a snapshot window's start is t itself).
func (w Window) forEach(t int64, fn func(start int64)) {
	if w.Kind == Snapshot {
		fn(t)
		return
	}
	step, dur, off := int64(w.Step()), int64(w.Duration), int64(w.Offset)
	last := floorDiv(t-off, step)*step + off
	for s := last; s > t-dur; s -= step {
		fn(s)
	}
}

// span is how long after its start an aligned window closes: its
// duration, or one nanosecond for a snapshot window (which closes once
// time has passed its instant).
func (w Window) span() int64 {
	if w.Kind == Snapshot {
		return 1
	}
	return int64(w.Duration)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// clocks tracks the progress of time for one windowed stage and decides
// which windows are closed.
//
// Each Kafka partition p has its own clock: maxEvent(p), the largest time
// seen on p, and maxArrival(p), the largest record timestamp seen on p. The
// event watermark is min over partitions of maxEvent(p) − allowed lateness,
// so the interleaving of partitions does not change which events are late
// when every partition is in time order. The horizon is the largest
// watermark reached so far; a window whose end is at or before the horizon
// is closed: it has been emitted, and rows for it are late.
//
// The wall clock moves the horizon too (Advance): each partition is assumed
// to progress at wall-clock speed since its last record, so its clock reads
// maxEvent(p) + (now − maxArrival(p)) (just now, when records carry no
// timestamp). On arrival time, where maxEvent(p) is maxArrival(p), that is
// now itself, and a window closes once now − allowed lateness passes its
// end. On event time it is the same when event times track record times,
// and replays of old data are not closed the moment they arrive: the
// horizon moves only as real time passes without records.
type clocks struct {
	parts    map[int32]*partClock
	horizon  int64
	lateness int64
}

type partClock struct {
	Partition  int32 `json:"partition"`
	MaxEvent   int64 `json:"maxEvent"`             // math.MinInt64: expected, no record yet
	MaxArrival int64 `json:"maxArrival,omitempty"` // 0: no record timestamp seen
}

func newClocks(lateness time.Duration) clocks {
	return clocks{parts: map[int32]*partClock{}, horizon: math.MinInt64, lateness: int64(lateness)}
}

func (c *clocks) closed(end int64) bool { return end <= c.horizon }

// expect registers a partition before it has records, so that it holds the
// event watermark back until it has (the wall clock still moves it).
func (c *clocks) expect(partition int32) {
	if _, ok := c.parts[partition]; !ok {
		c.parts[partition] = &partClock{Partition: partition, MaxEvent: math.MinInt64}
	}
}

// observe records a time seen on a partition and reports whether the
// horizon moved.
func (c *clocks) observe(partition int32, t int64, arrival time.Time) bool {
	pc, ok := c.parts[partition]
	if !ok {
		pc = &partClock{Partition: partition, MaxEvent: t}
		c.parts[partition] = pc
	}
	if t > pc.MaxEvent {
		pc.MaxEvent = t
	}
	if a, ok := timeNanos(arrival); ok && a > pc.MaxArrival {
		pc.MaxArrival = a
	}
	wm := int64(math.MaxInt64)
	for _, q := range c.parts {
		wm = min(wm, q.MaxEvent)
	}
	return c.raise(satAdd(wm, -c.lateness))
}

// wall moves the horizon by the wall clock and reports whether it moved.
func (c *clocks) wall(now int64) bool {
	if len(c.parts) == 0 {
		return false
	}
	wm := int64(math.MaxInt64)
	for _, q := range c.parts {
		wm = min(wm, q.reading(now))
	}
	return c.raise(satAdd(wm, -c.lateness))
}

func (q *partClock) reading(now int64) int64 {
	if q.MaxArrival == 0 {
		return max(q.MaxEvent, now)
	}
	return satAdd(q.MaxEvent, max(0, now-q.MaxArrival))
}

func (c *clocks) raise(wm int64) bool {
	if wm <= c.horizon {
		return false
	}
	c.horizon = wm
	return true
}

// deadline returns the earliest wall-clock time at which wall(now) closes a
// window ending at end.
func (c *clocks) deadline(end int64) (int64, bool) {
	if len(c.parts) == 0 {
		return 0, false
	}
	need := satAdd(end, c.lateness) // every partition clock must read at least this
	at := int64(math.MinInt64)
	for _, q := range c.parts {
		if q.MaxEvent >= need {
			continue
		}
		if q.MaxArrival == 0 {
			at = max(at, need)
		} else {
			at = max(at, satAdd(q.MaxArrival, need-q.MaxEvent))
		}
	}
	return at, true
}

// stampStage is a WindowStamp.
type stampStage struct {
	w     Window
	stats *Stats
}

func (s *stampStage) process(ev Event, emit func(Event)) {
	row := make(rows.Row, len(ev.Row)+3)
	for k, v := range ev.Row {
		row[k] = v
	}
	if t, ok := s.w.timeOf(ev); ok {
		var start int64
		s.w.forEach(t, func(st int64) { start = st })
		row[FieldWindowStart] = formatTime(start)
		row[FieldWindowEnd] = formatTime(start + int64(s.w.Duration))
		row[FieldSeedWindowStart] = formatTime(start)
	} else {
		s.stats.MissingTime++
		row[FieldWindowStart], row[FieldWindowEnd], row[FieldSeedWindowStart] = nil, nil, nil
	}
	ev.Row = row
	emit(ev)
}

func (s *stampStage) advance(int64, func(Event)) {}
