package pipeline

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// item is one row a sliding or session window holds while it may still be
// part of a window to emit, with its time.
type item struct {
	T   int64    `json:"t"`
	Row rows.Row `json:"row"`
}

// insertItem inserts it into items, kept in order of time and, for equal
// times, of arrival.
func insertItem(items []item, it item) []item {
	i := sort.Search(len(items), func(i int) bool { return items[i].T > it.T })
	items = append(items, item{})
	copy(items[i+1:], items[i:])
	items[i] = it
	return items
}

// keyOf returns the canonical group key of row and its normalized values.
func (g GroupBy) keyOf(row rows.Row) (string, []any) {
	vals := make([]any, len(g.Keys))
	parts := make([]string, len(g.Keys))
	for i, k := range g.Keys {
		v, _ := lookup(row, k)
		vals[i] = normalize(v)
		parts[i] = canonical(vals[i])
	}
	raw, _ := json.Marshal(parts)
	return string(raw), vals
}

// inputsOf reads row's value for each aggregate; nonNumeric is the number
// of distinct fields read by sum, min, max or avg whose value is present
// but not a number.
func (g GroupBy) inputsOf(row rows.Row) (in []aggInput, nonNumeric int64) {
	in = make([]aggInput, len(g.Aggregates))
	seen := map[string]bool{}
	for i, a := range g.Aggregates {
		if a.Field == "" {
			continue
		}
		v, present := lookup(row, a.Field)
		in[i].present = present
		if present && a.Fn != Count {
			in[i].num, in[i].isNum = toNumber(v)
			if !in[i].isNum && !seen[a.Field] {
				nonNumeric++
			}
			seen[a.Field] = true
		}
	}
	return in, nonNumeric
}

// groupItems aggregates items by g's keys; it returns the keys in order.
func (g GroupBy) groupItems(items []item) ([]string, map[string]*group) {
	groups := map[string]*group{}
	for _, it := range items {
		key, vals := g.keyOf(it.Row)
		grp := groups[key]
		if grp == nil {
			grp = &group{key: key, keys: vals, aggs: make([]aggState, len(g.Aggregates))}
			for i := range grp.aggs {
				grp.aggs[i].allInt = true
			}
			groups[key] = grp
		}
		in, _ := g.inputsOf(it.Row)
		for i, a := range g.Aggregates {
			grp.aggs[i].add(a, in[i])
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys, groups
}

// windowRow is the output row of one group of one window.
func (g GroupBy) windowRow(start, end int64, grp *group) rows.Row {
	row := make(rows.Row, 3+len(g.Keys)+len(g.Aggregates))
	row[FieldWindowStart] = formatTime(start)
	row[FieldWindowEnd] = formatTime(end)
	row[FieldSeedWindowStart] = formatTime(start)
	for i, k := range g.Keys {
		row[k] = grp.keys[i]
	}
	for i, a := range g.Aggregates {
		row[a.Output()] = grp.aggs[i].result(a)
	}
	return row
}

// pending is one output row of a sliding or session window, ordered for
// emission by end, start, partition and key.
type pending struct {
	start, end int64
	at         int64 // the row's record time: the window's last instant
	part, key  string
	row        rows.Row
}

func emitPending(out []pending, stats *Stats, emit func(Event)) {
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.end != b.end {
			return a.end < b.end
		}
		if a.start != b.start {
			return a.start < b.start
		}
		if a.part != b.part {
			return a.part < b.part
		}
		return a.key < b.key
	})
	for _, p := range out {
		stats.WindowsEmitted++
		emit(Event{Row: p.row, Timestamp: time.Unix(0, p.at).UTC(), Offset: -1})
	}
}
