package asaql

import (
	"fmt"
	"strings"
)

// timeUnits maps the window functions' time units (lower case) onto Go
// duration suffixes, after Microsoft's TumblingWindow reference.
var timeUnits = map[string]string{
	"day": "24h", "dd": "24h", "d": "24h", "hour": "h", "hh": "h", "minute": "m", "mi": "m", "n": "m",
	"second": "s", "ss": "s", "s": "s", "millisecond": "ms", "ms": "ms", "microsecond": "us", "mcs": "us",
}

// windowKinds are the window functions GROUP BY takes (Stream Analytics'
// windowing functions): the pipeline's window kind, the sizes that follow
// the time unit, and whether an optional offset may follow them.
var windowKinds = map[string]struct {
	kind   string
	sizes  int
	offset bool
}{
	"tumblingwindow": {"tumbling", 1, true}, "tumbling": {"tumbling", 1, true},
	"hoppingwindow": {"hopping", 2, true}, "hopping": {"hopping", 2, true},
	"slidingwindow": {"sliding", 1, false}, "sliding": {"sliding", 1, false},
	"sessionwindow": {"session", 2, false}, "session": {"session", 2, false},
	"snapshotwindow": {"snapshot", 0, false}, "snapshot": {"snapshot", 0, false},
}

// grouped compiles a SELECT with GROUP BY into a GroupBy and the
// ManageFields that keeps the selected columns.
func (c compiler) grouped() ([]map[string]any, error) {
	if c.q.Star {
		return nil, unsupported(0, "SELECT * with GROUP BY", "list the grouping columns and aggregates")
	}
	keys, win, err := c.groupTerms()
	if err != nil {
		return nil, err
	}
	if c.q.TimestampBy != "" {
		win["on"] = c.q.TimestampBy
	}
	f := newFields()
	aggs := []any{}
	for _, it := range c.q.Items {
		a, err := groupedItem(f, keys, it)
		if err != nil {
			return nil, err
		}
		if a != nil {
			aggs = append(aggs, a)
		}
	}
	if len(aggs) == 0 {
		return nil, unsupported(0, "GROUP BY without an aggregate", "select COUNT, SUM, AVG, MIN or MAX")
	}
	keyList := []any{}
	for _, k := range keys {
		keyList = append(keyList, k)
	}
	g := map[string]any{"type": "GroupBy", "name": c.name, "aggregates": aggs, "window": win}
	if len(keyList) > 0 {
		g["keys"] = keyList
	}
	return []map[string]any{g, f.spec(c.name)}, nil
}

// groupTerms reads the GROUP BY columns and its one window.
func (c compiler) groupTerms() (keys []string, win map[string]any, err error) {
	for _, x := range c.q.GroupBy {
		switch v := x.(type) {
		case *Column:
			if strings.Contains(v.Path, ".") {
				return nil, nil, unsupported(v.Pos, "the nested column "+v.Path+" in GROUP BY", "group by a top-level column")
			}
			keys = append(keys, v.Path)
		case *Call:
			if win != nil {
				return nil, nil, unsupported(v.Pos, "a second window in GROUP BY", "")
			}
			if win, err = window(v); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, exprRefusal(x, "in GROUP BY")
		}
	}
	if win == nil {
		return nil, nil, unsupported(c.q.GroupBy[0].at(), "GROUP BY without a window", "add a window: TumblingWindow(...), HoppingWindow(...), SlidingWindow(...), SessionWindow(...) or SnapshotWindow()")
	}
	return keys, win, nil
}

// groupedItem adds SELECT item it to f and returns the aggregate it
// computes (nil for a key or System.Timestamp()).
func groupedItem(f *fields, keys []string, it Item) (map[string]any, error) {
	switch x := it.X.(type) {
	case *Column:
		for _, k := range keys {
			if k == x.Path {
				return nil, f.add(x.Pos, k, aliasOr(it.Alias, k))
			}
		}
		return nil, syntax(x.Pos, "column %s is neither in GROUP BY nor aggregated", x.Path)
	case *Call:
		lower := strings.ToLower(x.Name)
		if lower == "system.timestamp" {
			return nil, f.add(x.Pos, "window_end", aliasOr(it.Alias, "window_end"))
		}
		fn, ok := aggregates[lower]
		if !ok {
			return nil, unsupported(x.Pos, "the function "+x.Name+"() with GROUP BY", "select COUNT, SUM, AVG, MIN, MAX, System.Timestamp() and grouping columns")
		}
		return aggregate(f, x, fn, it.Alias)
	}
	return nil, exprRefusal(it.X, "with GROUP BY")
}

// aggregate compiles aggregate call x of pipeline function fn.
func aggregate(f *fields, x *Call, fn, alias string) (map[string]any, error) {
	a := map[string]any{"fn": fn}
	switch {
	case x.Star && fn == "count":
	case len(x.Args) == 1:
		col, ok := x.Args[0].(*Column)
		if !ok {
			return nil, exprRefusal(x.Args[0], "inside "+x.Name+"()")
		}
		a["field"] = col.Path
	default:
		return nil, syntax(x.Pos, "%s() takes one column", x.Name)
	}
	as := alias
	if as == "" {
		as = fn
		if fld, ok := a["field"].(string); ok {
			as = fn + "_" + strings.ReplaceAll(fld, ".", "_")
		}
	}
	a["as"] = as
	if err := f.claim(x.Pos, as); err != nil {
		return nil, err
	}
	f.keep = append(f.keep, as)
	return a, nil
}

// window compiles TumblingWindow(unit, size [, offset]),
// HoppingWindow(unit, size, hop [, offset]), SlidingWindow(unit, size),
// SessionWindow(unit, timeout, maxDuration) and SnapshotWindow().
func window(v *Call) (map[string]any, error) {
	k, ok := windowKinds[strings.ToLower(v.Name)]
	if !ok {
		return nil, unsupported(v.Pos, "the function "+v.Name+"() in GROUP BY", "group by columns and one Tumbling, Hopping, Sliding, Session or Snapshot window")
	}
	if k.kind == "snapshot" {
		if len(v.Args) != 0 {
			return nil, syntax(v.Pos, "%s takes no arguments", v.Name)
		}
		return map[string]any{"kind": "snapshot"}, nil
	}
	want := 1 + k.sizes
	if len(v.Args) != want && !(k.offset && len(v.Args) == want+1) {
		return nil, syntax(v.Pos, "%s takes a time unit and %d sizes", v.Name, k.sizes)
	}
	sizes, err := windowSizes(v)
	if err != nil {
		return nil, err
	}
	w := map[string]any{"kind": k.kind}
	switch k.kind {
	case "session":
		w["timeout"], w["maxDuration"] = sizes[0], sizes[1]
	case "hopping":
		w["duration"], w["hop"] = sizes[0], sizes[1]
	default:
		w["duration"] = sizes[0]
	}
	if len(sizes) > k.sizes {
		w["offset"] = sizes[k.sizes]
	}
	return w, nil
}

// windowSizes reads a window function's time unit and its integer sizes
// as Go durations.
func windowSizes(v *Call) ([]string, error) {
	unitCol, ok := v.Args[0].(*Column)
	if !ok {
		return nil, unsupported(v.Pos, v.Name+" with a Duration() argument", "write the time unit first: "+v.Name+"(second, 10)")
	}
	unit, ok := timeUnits[strings.ToLower(unitCol.Path)]
	if !ok {
		return nil, syntax(unitCol.Pos, "%q is not a time unit (day, hour, minute, second, millisecond, microsecond)", unitCol.Path)
	}
	var sizes []string
	for _, a := range v.Args[1:] {
		n := number(a)
		if n == "" {
			return nil, syntax(a.at(), "%s takes integer sizes", v.Name)
		}
		sizes = append(sizes, durationOf(n, unit))
	}
	return sizes, nil
}

// durationOf is n units as a Go duration string.
func durationOf(n fmt.Stringer, unit string) string {
	if unit == "24h" {
		return fmt.Sprintf("%sh", mul24(n.String()))
	}
	return n.String() + unit
}

// mul24 is the decimal integer s times 24 (days to hours); s unchanged when
// it does not read.
func mul24(s string) string {
	var v int64
	if _, err := fmt.Sscan(s, &v); err != nil {
		return s
	}
	return fmt.Sprint(v * 24)
}
