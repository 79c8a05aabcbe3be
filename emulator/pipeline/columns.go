package pipeline

import (
	"slices"
	"strings"
)

// Columns returns the top-level fields of the rows the pipeline outputs,
// in the order its operators define them (the column order of a table the
// rows create), or nil when that order is the input records' own: when no
// operator projects the rows (Filter passes them on; WindowStamp,
// RollingAggregate and a ManageFields without Keep add to or take from
// the record's fields).
//
// A ManageFields with Keep, Fabric's projection, outputs the fields Keep
// lists in its order, a renamed field under its new name and a computed
// field where Keep lists it (else after the kept ones). A GroupBy outputs
// window_start, window_end, _window_start, its keys and its aggregates,
// in that order. The fields later operators add follow, and a later
// ManageFields without Keep drops and renames in place. A listed field may
// be absent from a row (a kept field the record lacks); a dotted Keep name
// is listed as itself and then as its top-level parent, as the row may
// hold either.
func (p *Pipeline) Columns() []string {
	var cols []string
	for _, op := range p.ops {
		switch o := op.(type) {
		case ManageFields:
			cols = o.columns(cols)
		case GroupBy:
			cols = []string{FieldWindowStart, FieldWindowEnd, FieldSeedWindowStart}
			cols = appendNew(cols, o.Keys...)
			for _, a := range o.Aggregates {
				cols = appendNew(cols, a.Output())
			}
		case Union, Join:
			cols = nil // the inputs' rows, each in its own order
		case WindowStamp:
			if cols != nil {
				cols = appendNew(cols, FieldWindowStart, FieldWindowEnd, FieldSeedWindowStart)
			}
		case RollingAggregate:
			for _, a := range o.Aggregates {
				if cols != nil {
					cols = appendNew(cols, a.Output())
				}
			}
		}
	}
	return cols
}

// columns returns the output fields of m for input fields in (nil: the
// input's order is not known, nor then the output's unless m keeps).
func (m ManageFields) columns(in []string) []string {
	computed := make(map[string]bool, len(m.Compute))
	for _, c := range m.Compute {
		computed[c.As] = true
	}
	var out []string
	switch {
	case len(m.Keep) > 0:
		for _, name := range m.Keep {
			switch to, renamed := m.Rename[name]; {
			case computed[name]:
				out = appendNew(out, name)
			case renamed:
				out = appendNew(out, to)
			default:
				out = appendNew(out, name)
				if top, _, dotted := strings.Cut(name, "."); dotted {
					out = appendNew(out, top)
				}
			}
		}
	case in == nil:
		return nil
	default:
		for _, name := range in {
			if slices.Contains(m.Drop, name) {
				continue
			}
			if to, renamed := m.Rename[name]; renamed {
				name = to
			}
			out = appendNew(out, name)
		}
		for _, from := range sortedKeys(m.Rename) {
			out = appendNew(out, m.Rename[from]) // nested sources
		}
	}
	for _, c := range m.Compute {
		out = appendNew(out, c.As)
	}
	return out
}

// appendNew appends the names that cols does not hold yet.
func appendNew(cols []string, names ...string) []string {
	for _, n := range names {
		if !slices.Contains(cols, n) {
			cols = append(cols, n)
		}
	}
	return cols
}
