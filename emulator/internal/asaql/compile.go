package asaql

import (
	"strings"
)

// Plan is a compiled query: the pipeline specs it runs, first first, and
// the names its FROM and INTO clauses give.
type Plan struct {
	From, Into string
	Specs      []map[string]any
}

// Compile parses query and compiles it into pipeline specs named name.
func Compile(query, name string) (*Plan, error) {
	q, err := Parse(query)
	if err != nil {
		return nil, err
	}
	c := compiler{name: name, q: q}
	plan := &Plan{From: q.From, Into: q.Into}
	if q.Where != nil {
		cond, err := condition(q.Where)
		if err != nil {
			return nil, err
		}
		plan.Specs = append(plan.Specs, map[string]any{"type": "Filter", "name": name, "condition": cond})
	}
	var more []map[string]any
	if len(q.GroupBy) > 0 {
		more, err = c.grouped()
	} else {
		more, err = c.projection()
	}
	if err != nil {
		return nil, err
	}
	plan.Specs = append(plan.Specs, more...)
	return plan, nil
}

// compiler holds the query being compiled.
type compiler struct {
	name string
	q    *Query
}

// fields is a ManageFields projection under construction.
type fields struct {
	keep    []any
	rename  map[string]any
	cast    map[string]any
	compute []any
	out     map[string]int // output names, to refuse duplicates (pos)
}

func newFields() *fields {
	return &fields{rename: map[string]any{}, cast: map[string]any{}, out: map[string]int{}}
}

// add records output column as from input column from (from == as:
// kept as is).
func (f *fields) add(pos int, from, as string) error {
	if err := f.claim(pos, as); err != nil {
		return err
	}
	for _, k := range f.keep {
		if k == from {
			return unsupported(pos, "selecting column "+from+" twice", "the emulator outputs an input column once")
		}
	}
	f.keep = append(f.keep, from)
	if from != as {
		f.rename[from] = as
	}
	return nil
}

// claim reserves output name as.
func (f *fields) claim(pos int, as string) error {
	if _, dup := f.out[strings.ToLower(as)]; dup {
		return syntax(pos, "column %q is output twice", as)
	}
	f.out[strings.ToLower(as)] = pos
	return nil
}

// spec is the ManageFields spec named name.
func (f *fields) spec(name string) map[string]any {
	s := map[string]any{"type": "ManageFields", "name": name, "keep": f.keep}
	if len(f.rename) > 0 {
		s["rename"] = f.rename
	}
	if len(f.cast) > 0 {
		s["cast"] = f.cast
	}
	if len(f.compute) > 0 {
		s["compute"] = f.compute
	}
	return s
}
