package pipeline

import (
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// Expand turns one row into one row per element of an array field, as
// Azure Stream Analytics' CROSS APPLY GetArrayElements does: each output
// row is the input row with the field replaced by one element, in array
// order. With several Fields the rows are expanded by each in turn (every
// combination, the first field varying slowest).
//
// A field that is missing, null or an empty array gives no row when
// IgnoreMissingOrEmpty is true (CROSS APPLY) and one row with the field
// set to null when it is false (OUTER APPLY). A field holding anything but
// an array is passed on once, unchanged. Fabric's Expand node,
// {column: [col] (or one col), ignoreMissingOrEmpty?}, maps onto it; an
// absent ignoreMissingOrEmpty is true, as CROSS APPLY is Stream Analytics'
// usual spelling.
type Expand struct {
	Name                 string
	Fields               []string
	IgnoreMissingOrEmpty bool
}

// Spec returns the canonical JSON shape.
func (e Expand) Spec() Spec {
	ignore := e.IgnoreMissingOrEmpty
	return Spec{Type: "Expand", Name: e.Name, Fields: e.Fields, IgnoreMissingOrEmpty: &ignore}
}

func (e Expand) validate(path string) error {
	if len(e.Fields) == 0 {
		return invalid(join(path, "fields"), "Expand needs at least one array field")
	}
	return uniqueNames(join(path, "fields"), e.Fields)
}

// expandStage is an Expand.
type expandStage struct {
	e     Expand
	stats *Stats
}

func (s *expandStage) process(ev Event, emit func(Event)) {
	s.expand(ev, 0, emit)
}

// expand expands ev.Row by Fields[i:] and emits the rows.
func (s *expandStage) expand(ev Event, i int, emit func(Event)) {
	if i == len(s.e.Fields) {
		emit(ev)
		return
	}
	name := s.e.Fields[i]
	segs, present := resolve(ev.Row, name)
	var v any
	if present {
		v = getPath(ev.Row, segs)
	}
	arr, isArr := v.([]any)
	switch {
	case v != nil && !isArr:
		s.expand(ev, i+1, emit)
		return
	case len(arr) == 0 && s.e.IgnoreMissingOrEmpty:
		s.stats.Filtered++
		return
	case len(arr) == 0:
		arr = []any{nil}
	}
	if segs == nil {
		segs = []string{name}
	}
	for _, el := range arr {
		row := cloneMaps(map[string]any(ev.Row)).(map[string]any)
		setPath(row, segs, el)
		out := ev
		out.Row = rows.Row(row)
		s.expand(out, i+1, emit)
	}
}

func (s *expandStage) advance(int64, func(Event)) {}
