package pipeline

import (
	"slices"
	"sort"
	"strings"
	"time"
)

// Operator is one stage of a pipeline: Filter, ManageFields, GroupBy,
// RollingAggregate, Expand, Union, Join or WindowStamp. Operators are plain values; Parse builds them from JSON and
// New checks hand-built ones the same way.
type Operator interface {
	// Spec returns the operator in the canonical JSON shape Parse accepts.
	Spec() Spec
	// validate checks the operator; path prefixes the field names in errors.
	validate(path string) error
}

// Filter keeps the rows for which Condition holds and drops the others
// (counted in Stats.Filtered).
//
// Fabric's eventstream.json Filter, {conditions: [{column, operatorType,
// value}]}, maps onto one Filter whose Condition is the And of its
// conditions: column.columnName (joined with columnPathSegments by dots)
// becomes Field, operatorType is accepted as Op under its Fabric name
// (Equals, NotEquals, GreaterThan, GreaterThanOrEquals, LessThan,
// LessThanOrEquals, Contains, DoesNotContain, StartsWith, DoesNotStartWith,
// EndsWith, DoesNotEndWith, IsNull, IsNotNull, IsEmpty, IsNotNullOrEmpty) and
// the literal {dataType, value} becomes Value typed by dataType (BigInt and
// Float as numbers, Bit as a boolean, Nvarchar(max) and DateTime as strings).
type Filter struct {
	Name      string
	Condition Condition
}

// ManageFields reshapes rows: Keep (when not empty) selects the fields that
// stay, Drop removes fields, Cast converts values, Rename renames fields.
// Every name refers to a field of the input row (a dotted name reaches into
// nested objects, see Lookup rules in the package documentation) and the
// steps apply in the order keep, drop, cast, rename. Rename targets are
// plain top-level names, so renaming "device.id" to "device_id" flattens.
//
// Fabric's ManageFields, {columns: [{type, alias, properties}]}, is a
// projection: it maps onto Keep = every column listed, Rename column→alias
// for a Rename (or an aliased Cast), and Cast column→targetDataType for a
// Cast (BigInt→long, Float→double, Nvarchar(max)→string, Bit→boolean,
// DateTime→timestamp), and Compute {Fn: functionName, Args: arguments, As:
// alias} for a FunctionCall (Keep then lists the alias, so that only the
// columns listed come out).
//
// Compute adds fields: each is evaluated on the input row (see ScalarFunc)
// and written, after the other steps, as a top-level field that replaces any
// field already called so; a failed evaluation writes null and is counted in
// Stats.FunctionFailures.
type ManageFields struct {
	Name    string
	Keep    []string
	Drop    []string
	Rename  map[string]string
	Cast    map[string]FieldType
	Compute []Compute
}

// GroupBy aggregates rows by Keys over the windows of Window and emits one
// row per window and key when the window closes (see the package
// documentation for when that is). Output rows carry window_start,
// window_end and _window_start (RFC 3339 UTC strings), one field per key
// named as the key, and one field per aggregate named by Aggregate.Output.
//
// Fabric's GroupBy, {aggregations: [{aggregationFunction, column, alias}],
// groupBy: [column], window: {type, properties}}, maps directly: groupBy
// columns are Keys; Average, Count, Maximum, Minimum and Sum are avg, count,
// max, min and sum with alias as As; Tumbling {duration, offset} and Hopping
// {hopSize, duration, offset} are the window kinds, durations {value, unit}
// are accepted as such. Fabric windows run on arrival (enqueued) time unless
// the query says otherwise, which is Window.On == "".
type GroupBy struct {
	Name       string
	Keys       []string
	Aggregates []Aggregate
	Window     Window
}

// WindowStamp is the seed's stand-alone Window operator: it adds
// window_start, window_end and _window_start of the tumbling window holding
// each row's time, and aggregates nothing. A seed Window immediately followed
// by a GroupBy without a window is parsed as that GroupBy's window instead.
// A row without a usable time gets null window fields and is counted in
// Stats.MissingTime. It has no Fabric counterpart.
type WindowStamp struct {
	Name   string
	Window Window
}

// Aggregate is one aggregate of a GroupBy.
type Aggregate struct {
	Fn    AggFunc
	Field string // the field aggregated; empty for a count of rows
	As    string // the output field; empty means Output's default
}

// AggFunc names an aggregate function.
type AggFunc string

// The aggregate functions. Count without a field counts rows; with a field
// it counts rows where the field is present and not null. Sum, Min, Max and
// Avg aggregate the numeric values of the field; null and missing values are
// skipped, other non-numeric values are skipped and counted in
// Stats.NonNumeric. Count is a long; Sum, Min and Max are longs when every
// value aggregated was an integer (and the sum fits in 64 bits), doubles
// otherwise; Avg is always a double; all but Count are null when no numeric
// value was seen.
const (
	Count AggFunc = "count"
	Sum   AggFunc = "sum"
	Min   AggFunc = "min"
	Max   AggFunc = "max"
	Avg   AggFunc = "avg"
)

// Output returns the name of the output field: As, or "<fn>_<field>" when As
// is empty ("count" for a count of rows), with dots in the field name
// replaced by underscores.
func (a Aggregate) Output() string {
	if a.As != "" {
		return a.As
	}
	if a.Field == "" {
		return string(a.Fn)
	}
	return string(a.Fn) + "_" + strings.ReplaceAll(a.Field, ".", "_")
}

// WindowKind names a window kind.
type WindowKind string

// The window kinds, with Azure Stream Analytics' semantics (see the package
// documentation, "Sliding, session and snapshot windows").
const (
	Tumbling WindowKind = "tumbling"
	Hopping  WindowKind = "hopping"
	Sliding  WindowKind = "sliding"
	Session  WindowKind = "session"
	Snapshot WindowKind = "snapshot"
)

// Window describes the time windows of a GroupBy or WindowStamp.
//
// Windows are half-open intervals [start, start+Duration) with start =
// Offset + k·step for every integer k, where step is Duration for tumbling
// windows and Hop for hopping windows, counted from the Unix epoch in UTC.
// With Hop < Duration hopping windows overlap and a row counts in every
// window covering its time (Duration/Hop of them when Hop divides Duration).
type Window struct {
	Kind     WindowKind
	Duration time.Duration
	Hop      time.Duration // hopping only; 0 < Hop <= Duration
	Offset   time.Duration // 0 <= Offset < step
	// On names the event-time field (RFC 3339 string or epoch-milliseconds
	// number); empty means arrival time, the Kafka record timestamp.
	On string
	// AllowedLateness is how long a window stays open after the watermark
	// (the largest time seen) passes its end.
	AllowedLateness time.Duration
	// Timeout, MaxDuration and PartitionBy are a session window's: a
	// session closes Timeout after its last event or at the first multiple
	// of MaxDuration (from the epoch) at least MaxDuration after its first,
	// and sessions are kept apart per value of the field PartitionBy names
	// (one session at a time for the whole stream when empty).
	Timeout     time.Duration
	MaxDuration time.Duration
	PartitionBy string
}

// Step returns the distance between consecutive window starts.
func (w Window) Step() time.Duration {
	if w.Kind == Hopping {
		return w.Hop
	}
	return w.Duration
}

// FieldType names a ManageFields cast target. Null casts to null; a value
// that cannot be converted becomes null and is counted in
// Stats.CastFailures (the row is kept). The conversions:
//
//   - string: strings unchanged; numbers as their JSON text; booleans as
//     "true"/"false"; objects and arrays as compact JSON.
//   - long: integers unchanged; doubles truncated toward zero (if within
//     int64); strings parsed as an integer, else as a decimal then
//     truncated; booleans 1/0. The result is an integer json.Number.
//   - double: numbers; strings parsed as a finite decimal; booleans 1.0/0.0.
//     The result is a json.Number with a decimal point or an exponent.
//   - boolean: booleans; strings "true"/"false"/"1"/"0" (any case, trimmed);
//     numbers (0 is false, anything else true).
//   - timestamp: RFC 3339 strings and epoch-millisecond numbers, as an RFC
//     3339 UTC string ("2026-01-02T03:04:05.5Z").
//
// Objects and arrays cast only to string.
type FieldType string

// The cast targets. Parse also accepts Fabric's names: BigInt (and int,
// integer) for long, Float for double, Nvarchar(max) for string, Bit (and
// bool) for boolean, DateTime for timestamp.
const (
	TypeString    FieldType = "string"
	TypeLong      FieldType = "long"
	TypeDouble    FieldType = "double"
	TypeBoolean   FieldType = "boolean"
	TypeTimestamp FieldType = "timestamp"
)

// Limits that keep window arithmetic inside int64 nanoseconds.
const (
	maxDuration = 10 * 366 * 24 * time.Hour
	maxPanes    = 1000
)

// Names GroupBy and WindowStamp write.
const (
	FieldWindowStart     = "window_start"
	FieldWindowEnd       = "window_end"
	FieldSeedWindowStart = "_window_start"
)

func reservedWindowField(name string) bool {
	return name == FieldWindowStart || name == FieldWindowEnd || name == FieldSeedWindowStart
}

// ---- validation of the model (shared by Parse and New) ----

func (f Filter) validate(path string) error {
	return f.Condition.validate(join(path, "condition"), 0)
}

func (m ManageFields) validate(path string) error {
	if len(m.Keep) == 0 && len(m.Drop) == 0 && len(m.Rename) == 0 && len(m.Cast) == 0 && len(m.Compute) == 0 {
		return invalid(path, "ManageFields needs at least one of keep, drop, rename, cast, compute")
	}
	if err := uniqueNames(join(path, "keep"), m.Keep); err != nil {
		return err
	}
	if err := uniqueNames(join(path, "drop"), m.Drop); err != nil {
		return err
	}
	for i, d := range m.Drop {
		if slices.Contains(m.Keep, d) {
			return invalid(index(join(path, "drop"), i), "%q is also in keep", d)
		}
	}
	kept := func(name string) bool {
		if len(m.Keep) == 0 {
			return true
		}
		for _, k := range m.Keep {
			if name == k || strings.HasPrefix(name, k+".") {
				return true
			}
		}
		return false
	}
	dropped := func(name string) bool {
		for _, d := range m.Drop {
			if name == d || strings.HasPrefix(name, d+".") {
				return true
			}
		}
		return false
	}
	for _, from := range sortedKeys(m.Cast) {
		p := join(join(path, "cast"), from)
		if from == "" {
			return invalid(p, "a field name must not be empty")
		}
		if !kept(from) || dropped(from) {
			return invalid(p, "casts %q, which keep/drop removes", from)
		}
		switch m.Cast[from] {
		case TypeString, TypeLong, TypeDouble, TypeBoolean, TypeTimestamp:
		default:
			return invalid(p, "%q is not one of string, long, double, boolean, timestamp", m.Cast[from])
		}
	}
	targets := map[string]string{}
	for _, from := range sortedKeys(m.Rename) {
		to := m.Rename[from]
		p := join(join(path, "rename"), from)
		if from == "" {
			return invalid(p, "a field name must not be empty")
		}
		if to == "" {
			return invalid(p, "the new name must not be empty")
		}
		if !kept(from) || dropped(from) {
			return invalid(p, "renames %q, which keep/drop removes", from)
		}
		if other, dup := targets[to]; dup {
			return invalid(p, "%q is also the new name of %q", to, other)
		}
		targets[to] = from
		if slices.Contains(m.Keep, to) {
			if _, renamedAway := m.Rename[to]; !renamedAway {
				return invalid(p, "the new name %q would overwrite a kept field", to)
			}
		}
	}
	return m.validateCompute(path, targets)
}

func (g GroupBy) validate(path string) error {
	if err := g.validateBody(path); err != nil {
		return err
	}
	return g.Window.validate(join(path, "window"))
}

// validateBody checks keys and aggregates, all but the window.
func (g GroupBy) validateBody(path string) error {
	if err := uniqueNames(join(path, "keys"), g.Keys); err != nil {
		return err
	}
	for i, k := range g.Keys {
		if reservedWindowField(k) {
			return invalid(index(join(path, "keys"), i), "%q is written by the window; it cannot be a key", k)
		}
	}
	if len(g.Aggregates) == 0 {
		return invalid(join(path, "aggregates"), "GroupBy needs at least one aggregate")
	}
	outs := map[string]bool{}
	for i, a := range g.Aggregates {
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
		out := a.Output()
		switch {
		case reservedWindowField(out):
			return invalid(join(p, "as"), "%q is written by the window", out)
		case slices.Contains(g.Keys, out):
			return invalid(join(p, "as"), "%q is also a key", out)
		case outs[out]:
			return invalid(join(p, "as"), "%q is the output of another aggregate; give each its own \"as\"", out)
		}
		outs[out] = true
	}
	return nil
}

func (s WindowStamp) validate(path string) error {
	if err := s.Window.validate(path); err != nil {
		return err
	}
	if s.Window.Kind != Tumbling {
		return notSupported(join(path, "kind"), "a stand-alone "+string(s.Window.Kind)+" Window",
			"a stand-alone Window stamps each row with its one tumbling window; put this window on a GroupBy")
	}
	return nil
}

func (w Window) validate(path string) error {
	switch w.Kind {
	case Sliding, Session, Snapshot:
		return w.validateASA(path)
	case Tumbling:
		if w.Hop != 0 && w.Hop != w.Duration {
			return invalid(join(path, "hop"), "hop is for hopping windows; a tumbling window hops by its duration")
		}
	case Hopping:
	case "":
		return invalid(join(path, "kind"), "required: tumbling, hopping, sliding, session or snapshot")
	default:
		return invalid(join(path, "kind"), "%q is not tumbling, hopping, sliding, session or snapshot", w.Kind)
	}
	if err := checkDuration(join(path, "duration"), w.Duration, true); err != nil {
		return err
	}
	if w.Kind == Hopping {
		if w.Hop == 0 {
			return invalid(join(path, "hop"), "a hopping window needs hop (0 < hop <= duration)")
		}
		if err := checkDuration(join(path, "hop"), w.Hop, true); err != nil {
			return err
		}
		if w.Hop > w.Duration {
			return invalid(join(path, "hop"), "hop %v is longer than the duration %v; rows between windows would be lost", w.Hop, w.Duration)
		}
		if w.Duration/w.Hop > maxPanes {
			return invalid(join(path, "hop"), "duration/hop is %d; at most %d windows may overlap", w.Duration/w.Hop, maxPanes)
		}
	}
	if err := checkDuration(join(path, "offset"), w.Offset, false); err != nil {
		return err
	}
	if w.Offset >= w.Step() {
		return invalid(join(path, "offset"), "offset %v must be shorter than the window step %v", w.Offset, w.Step())
	}
	if w.Timeout != 0 || w.MaxDuration != 0 || w.PartitionBy != "" {
		return invalid(join(path, "timeout"), "timeout, maxDuration and partitionBy are for session windows")
	}
	return checkDuration(join(path, "allowedLateness"), w.AllowedLateness, false)
}

func checkDuration(path string, d time.Duration, positive bool) error {
	switch {
	case positive && d <= 0:
		return invalid(path, "must be positive, got %v", d)
	case d < 0:
		return invalid(path, "must not be negative, got %v", d)
	case d > maxDuration:
		return invalid(path, "%v is longer than the %v the emulator allows", d, maxDuration)
	}
	return nil
}

func uniqueNames(path string, names []string) error {
	seen := map[string]bool{}
	for i, n := range names {
		if n == "" {
			return invalid(index(path, i), "a field name must not be empty")
		}
		if seen[n] {
			return invalid(index(path, i), "%q is listed twice", n)
		}
		seen[n] = true
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ---- canonical JSON ----

// Spec is the canonical JSON shape of one operator, the form Operator.Spec
// returns and Format writes. Parse accepts it and more (see the package
// documentation): the seed's flat window fields, Fabric's spellings of ops,
// functions and types, durations as {value, unit}.
type Spec struct {
	Type       string            `json:"type"`
	Name       string            `json:"name,omitempty"`
	Condition  *Condition        `json:"condition,omitempty"`
	Keep       []string          `json:"keep,omitempty"`
	Drop       []string          `json:"drop,omitempty"`
	Rename     map[string]string `json:"rename,omitempty"`
	Cast       map[string]string `json:"cast,omitempty"`
	Compute    []ComputeSpec     `json:"compute,omitempty"`
	Keys       []string          `json:"keys,omitempty"`
	Aggregates []AggregateSpec   `json:"aggregates,omitempty"`
	Window     *WindowSpec       `json:"window,omitempty"`
	// On and AllowedLateness are an Aggregate's time axis (a GroupBy has
	// them in Window).
	On              string `json:"on,omitempty"`
	AllowedLateness string `json:"allowedLateness,omitempty"`
	// Inputs are a Union's or a Join's input chains (left, right).
	Inputs [][]Spec `json:"inputs,omitempty"`
	// JoinType, JoinOn and Duration are a Join's.
	JoinType string       `json:"joinType,omitempty"`
	JoinOn   []JoinOnSpec `json:"joinOn,omitempty"`
	Duration string       `json:"duration,omitempty"`
	// Fields and IgnoreMissingOrEmpty are an Expand's.
	Fields               []string `json:"fields,omitempty"`
	IgnoreMissingOrEmpty *bool    `json:"ignoreMissingOrEmpty,omitempty"`
}

// AggregateSpec is the canonical JSON shape of an Aggregate (of a GroupBy)
// or of a Rolling (of an Aggregate operator, which adds PartitionBy and
// Duration, a Go duration string).
type AggregateSpec struct {
	Fn          string   `json:"fn"`
	Field       string   `json:"field,omitempty"`
	As          string   `json:"as"`
	PartitionBy []string `json:"partitionBy,omitempty"`
	Duration    string   `json:"duration,omitempty"`
}

// JoinOnSpec is the canonical JSON shape of a JoinOn.
type JoinOnSpec struct {
	Left  string `json:"left"`
	Right string `json:"right"`
}

// ComputeSpec is the canonical JSON shape of a Compute: fn in lower case,
// each argument {"field": name} or {"literal": value}.
type ComputeSpec struct {
	Fn   string           `json:"fn"`
	Args []map[string]any `json:"args"`
	As   string           `json:"as"`
}

// WindowSpec is the canonical JSON shape of a Window; durations are Go
// duration strings ("1m0s").
type WindowSpec struct {
	Kind            string `json:"kind"`
	Duration        string `json:"duration,omitempty"`
	Hop             string `json:"hop,omitempty"`
	Offset          string `json:"offset,omitempty"`
	On              string `json:"on,omitempty"`
	AllowedLateness string `json:"allowedLateness,omitempty"`
	Timeout         string `json:"timeout,omitempty"`
	MaxDuration     string `json:"maxDuration,omitempty"`
	PartitionBy     string `json:"partitionBy,omitempty"`
}

// Spec returns the canonical JSON shape.
func (f Filter) Spec() Spec {
	c := f.Condition
	return Spec{Type: "Filter", Name: f.Name, Condition: &c}
}

// Spec returns the canonical JSON shape.
func (m ManageFields) Spec() Spec {
	s := Spec{Type: "ManageFields", Name: m.Name, Keep: m.Keep, Drop: m.Drop, Rename: m.Rename}
	if len(m.Cast) > 0 {
		s.Cast = map[string]string{}
		for k, v := range m.Cast {
			s.Cast[k] = string(v)
		}
	}
	for _, c := range m.Compute {
		s.Compute = append(s.Compute, c.spec())
	}
	return s
}

// Spec returns the canonical JSON shape.
func (g GroupBy) Spec() Spec {
	s := Spec{Type: "GroupBy", Name: g.Name, Keys: g.Keys, Window: g.Window.spec()}
	for _, a := range g.Aggregates {
		s.Aggregates = append(s.Aggregates, AggregateSpec{Fn: string(a.Fn), Field: a.Field, As: a.Output()})
	}
	return s
}

// Spec returns the canonical JSON shape.
func (s WindowStamp) Spec() Spec {
	return Spec{Type: "Window", Name: s.Name, Window: s.Window.spec()}
}

func (w Window) spec() *WindowSpec {
	s := &WindowSpec{Kind: string(w.Kind), On: w.On, PartitionBy: w.PartitionBy}
	if w.Kind != Session && w.Kind != Snapshot {
		s.Duration = w.Duration.String()
	}
	if w.Kind == Session {
		s.Timeout, s.MaxDuration = w.Timeout.String(), w.MaxDuration.String()
	}
	if w.Kind == Hopping {
		s.Hop = w.Hop.String()
	}
	if w.Offset != 0 {
		s.Offset = w.Offset.String()
	}
	if w.AllowedLateness != 0 {
		s.AllowedLateness = w.AllowedLateness.String()
	}
	return s
}
