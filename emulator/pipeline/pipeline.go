package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// Event is one Kafka record as the pipeline sees it.
type Event struct {
	// Row is the record value as a row (rows.FromValue). The pipeline never
	// modifies it; output rows may share nested values with it.
	Row rows.Row
	// Timestamp is the Kafka record timestamp: the arrival time windows use
	// when they have no On field, and the pace of the wall clock for event
	// time (see Advance).
	Timestamp time.Time
	// Partition and Offset place the record in the topic. Records of one
	// partition must be fed in offset order: a record whose offset is below
	// the next offset already fed for its partition is a replay, skipped and
	// counted in Stats.Replayed. A negative Offset means "no position": the
	// record is always processed and not tracked.
	Partition int32
	Offset    int64
}

// Stats counts what the pipeline did; nothing is dropped without a count.
type Stats struct {
	Events           int64 `json:"events"`           // records processed (replays excluded)
	Replayed         int64 `json:"replayed"`         // records skipped: offset already fed
	Filtered         int64 `json:"filtered"`         // rows a Filter dropped, or an Expand dropped for a missing or empty array
	CastFailures     int64 `json:"castFailures"`     // values a cast could not convert, set to null
	FunctionFailures int64 `json:"functionFailures"` // computed fields set to null: an argument of the wrong type or out of the function's domain
	NonNumeric       int64 `json:"nonNumeric"`       // non-numeric values sum/min/max/avg skipped
	MissingTime      int64 `json:"missingTime"`      // rows without a usable window time (GroupBy drops them, Window stamps null, Aggregate passes them with null aggregates)
	Late             int64 `json:"late"`             // rows dropped from at least one window already emitted, or taken at an Aggregate's horizon
	WindowsEmitted   int64 `json:"windowsEmitted"`   // GroupBy output rows (one per window and key)
	Rows             int64 `json:"rows"`             // rows the pipeline returned
	GroupsOverLimit  int64 `json:"groupsOverLimit"`  // rows that would have started a group past MaxGroups (dropped from a GroupBy window, a null Aggregate)
}

// Pipeline runs operators in order over a stream of events. Filter,
// ManageFields, WindowStamp and RollingAggregate (which remembers recent
// rows) pass rows on at once; GroupBy holds windows across calls and emits
// each exactly once, when it closes. The output is a function of the
// sequence of events fed (and of the Advance calls), not of how the events
// were split into Process calls. A Pipeline is safe for
// concurrent use; calls are serialised.
type Pipeline struct {
	mu          sync.Mutex
	ops         []Operator
	stages      []stage
	stats       Stats
	offsets     map[int32]int64
	fingerprint string
}

type stage interface {
	process(ev Event, emit func(Event))
	advance(now int64, emit func(Event))
}

// windowed is a GroupBy stage: its clocks and the end of its earliest open
// window.
type windowed interface {
	stage
	clock() *clocks
	nextEnd() (int64, bool)
}

// newWindowStage builds the stage of g's window kind.
func newWindowStage(g GroupBy, stats *Stats) windowed {
	switch g.Window.Kind {
	case Sliding:
		return newSlidingStage(g, stats)
	case Session:
		return newSessionStage(g, stats)
	}
	return newGroupByStage(g, stats)
}

// New builds a pipeline from operators (usually Parse's result), checking
// them as Parse does; errors are *ValidationError or *NotSupportedError
// naming "operators[i]…". No operators is a pipeline that passes rows
// through.
func New(ops []Operator) (*Pipeline, error) {
	p := &Pipeline{ops: append([]Operator(nil), ops...), offsets: map[int32]int64{}}
	stages, err := buildStages(ops, "operators", &p.stats)
	if err != nil {
		return nil, err
	}
	p.stages = stages
	fp, err := fingerprint(ops)
	if err != nil {
		return nil, err
	}
	p.fingerprint = fp
	return p, nil
}

// buildStages checks ops (named path[i] in errors) and builds their stages.
func buildStages(ops []Operator, path string, stats *Stats) ([]stage, error) {
	var stages []stage
	for i, op := range ops {
		at := index(path, i)
		if op == nil {
			return nil, invalid(at, "nil operator")
		}
		if err := op.validate(at); err != nil {
			return nil, err
		}
		st, err := newStage(op, at, stats)
		if err != nil {
			return nil, err
		}
		stages = append(stages, st)
	}
	return stages, nil
}

// newStage builds the stage of one checked operator.
func newStage(op Operator, path string, stats *Stats) (stage, error) {
	switch o := op.(type) {
	case Filter:
		return &filterStage{c: compile(o.Condition), stats: stats}, nil
	case ManageFields:
		return newFieldsStage(o, stats), nil
	case GroupBy:
		return newWindowStage(o, stats), nil
	case RollingAggregate:
		return newRollingStage(o, stats), nil
	case WindowStamp:
		return &stampStage{w: o.Window, stats: stats}, nil
	case Expand:
		return &expandStage{e: o, stats: stats}, nil
	case Union:
		return newUnionStage(o, path, stats)
	case Join:
		return newJoinStage(o, path, stats)
	}
	return nil, invalid(path, "unknown operator %T", op)
}

// Process feeds events in order and returns the rows that come out: rows
// that passed the stateless stages and the windows the events closed.
func (p *Pipeline) Process(batch []Event) []rows.Row {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []rows.Row
	for _, ev := range batch {
		if ev.Offset >= 0 {
			if next, ok := p.offsets[ev.Partition]; ok && ev.Offset < next {
				p.stats.Replayed++
				continue
			}
			p.offsets[ev.Partition] = ev.Offset + 1
		}
		if ev.Row == nil {
			ev.Row = rows.Row{}
		}
		p.stats.Events++
		p.push(0, ev, &out)
	}
	p.stats.Rows += int64(len(out))
	return out
}

// Advance moves the wall clock to now and returns the windows that closes,
// run through the stages after their GroupBy. On arrival time a window
// closes once now − allowed lateness passes its end; on event time each
// partition's clock is taken to run at wall-clock speed since its last
// record (see the package documentation), so the last window is not held
// forever and replays of old data are not cut short. Call it periodically
// (Deadline says when it next has work) and after each Process.
func (p *Pipeline) Advance(now time.Time) []rows.Row {
	p.mu.Lock()
	defer p.mu.Unlock()
	if now.IsZero() {
		return nil
	}
	ns := now.UnixNano()
	var out []rows.Row
	for i, st := range p.stages {
		st.advance(ns, func(e Event) { p.push(i+1, e, &out) })
	}
	p.stats.Rows += int64(len(out))
	return out
}

func (p *Pipeline) push(i int, ev Event, out *[]rows.Row) {
	if i == len(p.stages) {
		*out = append(*out, ev.Row)
		return
	}
	p.stages[i].process(ev, func(e Event) { p.push(i+1, e, out) })
}

// Deadline returns the earliest wall-clock time at which Advance would
// close a window, and false when no window is open. Rows a closed window
// sends into a later GroupBy may bring that stage's deadline forward, so
// check again after each call.
func (p *Pipeline) Deadline() (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	best, found := int64(math.MaxInt64), false
	walkStages(p.stages, func(st stage) {
		g, ok := st.(windowed)
		if !ok {
			return
		}
		end, ok := g.nextEnd()
		if !ok {
			return
		}
		if at, ok := g.clock().deadline(end); ok {
			best, found = min(best, at), true
		}
	})
	if !found {
		return time.Time{}, false
	}
	return time.Unix(0, max(best, 0)).UTC(), true
}

// ExpectPartitions declares the Kafka partitions the pipeline will be fed
// from. Until a declared partition has records it holds the event-time
// watermark back (Advance still moves time on), so records of a partition
// that starts late are not late merely because another partition ran ahead:
// with every partition declared and each in time order, the rows do not
// depend on how the partitions are interleaved. Call it before feeding;
// the declaration is part of the snapshot.
func (p *Pipeline) ExpectPartitions(partitions ...int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	expectIn(p.stages, partitions)
}

// expectIn declares partitions to the first windowed stage of stages and
// of every input chain before it: later ones are fed by those, not by
// Kafka.
func expectIn(stages []stage, partitions []int32) {
	for _, st := range stages {
		if n, ok := st.(nested); ok {
			for _, in := range n.inputs() {
				expectIn(in, partitions)
			}
		}
		if g, ok := st.(windowed); ok {
			for _, part := range partitions {
				g.clock().expect(part)
			}
			return
		}
	}
}

// walkStages calls fn with every stage of stages, and of their inputs.
func walkStages(stages []stage, fn func(stage)) {
	for _, st := range stages {
		fn(st)
		if n, ok := st.(nested); ok {
			for _, in := range n.inputs() {
				walkStages(in, fn)
			}
		}
	}
}

// Offsets returns, per partition, the offset after the last record fed:
// where a consumer resumes so that nothing is fed twice or skipped.
func (p *Pipeline) Offsets() map[int32]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[int32]int64, len(p.offsets))
	for k, v := range p.offsets {
		out[k] = v
	}
	return out
}

// Stats returns the counters.
func (p *Pipeline) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Operators returns the operators the pipeline runs.
func (p *Pipeline) Operators() []Operator {
	return append([]Operator(nil), p.ops...)
}

// Stateful reports whether the pipeline holds state across calls (has a
// GroupBy, an Aggregate or a Join, in its inputs too), so its caller must call Advance and keep
// snapshots.
func (p *Pipeline) Stateful() bool {
	stateful := false
	walkStages(p.stages, func(st stage) {
		switch st.(type) {
		case windowed, *rollingStage:
			stateful = true
		}
	})
	return stateful
}

// Format renders operators in the canonical JSON shape: an array of Spec.
func Format(ops []Operator) ([]byte, error) {
	specs := make([]Spec, len(ops))
	for i, op := range ops {
		specs[i] = op.Spec()
	}
	return json.Marshal(specs)
}

// fingerprint identifies the operators a snapshot belongs to (names aside).
func fingerprint(ops []Operator) (string, error) {
	specs := make([]Spec, len(ops))
	for i, op := range ops {
		specs[i] = op.Spec()
		specs[i].Name = ""
	}
	raw, err := json.Marshal(specs)
	if err != nil {
		return "", fmt.Errorf("pipeline: operators do not render as JSON: %w", err)
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:]), nil
}

// filterStage is a Filter.
type filterStage struct {
	c     cond
	stats *Stats
}

func (s *filterStage) process(ev Event, emit func(Event)) {
	if s.c.match(ev.Row) {
		emit(ev)
		return
	}
	s.stats.Filtered++
}

func (s *filterStage) advance(int64, func(Event)) {}

// fieldsStage is a ManageFields.
type fieldsStage struct {
	m     ManageFields
	casts []string // sorted names
	from  []string // sorted rename sources
	stats *Stats
}

func newFieldsStage(m ManageFields, stats *Stats) *fieldsStage {
	return &fieldsStage{m: m, casts: sortedKeys(m.Cast), from: sortedKeys(m.Rename), stats: stats}
}

func (s *fieldsStage) process(ev Event, emit func(Event)) {
	ev.Row = s.apply(ev.Row)
	emit(ev)
}

func (s *fieldsStage) advance(int64, func(Event)) {}
