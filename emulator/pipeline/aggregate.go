package pipeline

import (
	"strings"
	"time"
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
