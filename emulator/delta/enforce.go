package delta

import (
	"sort"
	"time"
	"unicode/utf8"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// DroppedField counts the values of one field that schema enforcement did
// not write because the table has no column (or struct member) for them.
type DroppedField struct {
	// Path is the field's path, as SchemaConflictError.Field
	// ("note", "order.extra", "items[].x").
	Path string
	// Count is how many values were dropped (null values are not
	// counted: nothing of them is lost).
	Count int64
	// Example is the first dropped value's compact JSON text, cut to 100
	// characters.
	Example string
}

// Report is what one append did.
type Report struct {
	// Version is the version the batch was committed as (as Append's).
	Version int64
	// Dropped lists the dropped fields in path order; always empty under
	// SchemaEvolve.
	Dropped []DroppedField
}

// enforced is a batch projected onto the table's schema.
type enforced struct {
	schema  Schema
	rows    []rows.Row
	dropped []DroppedField
}

// enforce projects batch onto the table's schema by the schema
// enforcement rules of the package documentation; a table without a
// commit (exists false) takes its schema from the batch's first record,
// its columns in the member order order gives for that record. It returns
// a *RowsError listing every row that cannot be written.
func enforce(table Schema, exists bool, batch []rows.Row, order func(row int) *FieldOrder) (*enforced, error) {
	var errs []error
	start := 0
	if !exists {
		table, start, errs = firstRecordSchema(batch, order)
	}
	p := &projector{dropped: map[string]*DroppedField{}}
	root := newShape("", StructOf(table.Fields...))
	out := make([]rows.Row, 0, len(batch)-start)
	for i := start; i < len(batch); i++ {
		r, err := p.row(root, batch[i])
		if err != nil {
			errs = append(errs, setRow(err, i))
			continue
		}
		out = append(out, r)
	}
	if len(errs) > 0 {
		return nil, &RowsError{Errs: errs}
	}
	return &enforced{schema: table, rows: out, dropped: p.report()}, nil
}

// firstRecordSchema infers a new table's schema from the first row that
// makes at least one column, its columns and struct members in that row's
// member order (order(row), asked for that row alone); the rows before
// it, which make none or break a limit, come back as errors. start is the
// index of that row (len(batch) when there is none).
func firstRecordSchema(batch []rows.Row, order func(row int) *FieldOrder) (schema Schema, start int, errs []error) {
	for i, r := range batch {
		ev, err := evolve(Schema{}, batch[i:i+1])
		switch {
		case err != nil:
			errs = append(errs, setRow(err, i))
		case len(ev.schema.Fields) == 0:
			errs = append(errs, &ConversionError{Row: i, Value: cutText(jsonText(r))})
		default:
			return Schema{Fields: ordered(ev.schema.Fields, order(i))}, i, errs
		}
	}
	return Schema{}, len(batch), errs
}

// shape is a table schema compiled for projection: each struct's members
// by exact and by folded name.
type shape struct {
	name   string
	t      DataType
	k      kind
	byName map[string]*shape
	byFold map[string]*shape
	elem   *shape
}

func newShape(name string, t DataType) *shape {
	s := &shape{name: name, t: t, k: kindOf(t.Name)}
	switch s.k {
	case kStruct:
		s.byName = make(map[string]*shape, len(t.Fields))
		s.byFold = make(map[string]*shape, len(t.Fields))
		for _, f := range t.Fields {
			c := newShape(f.Name, f.Type)
			s.byName[f.Name] = c
			s.byFold[foldName(f.Name)] = c
		}
	case kArray:
		s.elem = newShape("element", *t.Element)
	}
	return s
}

// lookup finds the member that stores key, as node.lookup does.
func (s *shape) lookup(key string) *shape {
	if c := s.byName[key]; c != nil {
		return c
	}
	return s.byFold[foldName(columnName(key))]
}

// projector projects rows onto a shape, counting what it drops.
type projector struct {
	dropped map[string]*DroppedField
	pending []pendingDrop // the current row's drops, kept if it is written
}

type pendingDrop struct {
	path string
	v    any
}

// row projects one row; a row with no member that names a column is a
// *ConversionError.
func (p *projector) row(root *shape, r rows.Row) (rows.Row, error) {
	p.pending = p.pending[:0]
	out, matched, err := p.object(root, r, "")
	if err != nil {
		return nil, err
	}
	if matched == 0 {
		return nil, &ConversionError{Value: cutText(jsonText(r))}
	}
	for _, d := range p.pending {
		f := p.dropped[d.path]
		if f == nil {
			f = &DroppedField{Path: d.path, Example: cutText(jsonText(d.v))}
			p.dropped[d.path] = f
		}
		f.Count++
	}
	return out, nil
}

// object projects the members of an object onto struct s; matched counts
// the members that name a member of s.
func (p *projector) object(s *shape, obj map[string]any, path string) (map[string]any, int, error) {
	out := make(map[string]any, len(s.byName))
	from := make(map[*shape]string, len(obj))
	for key, v := range obj {
		c := s.lookup(key)
		if c == nil {
			if v != nil {
				p.pending = append(p.pending, pendingDrop{path: memberPath(path, key), v: v})
			}
			continue
		}
		if other, dup := from[c]; dup {
			return nil, 0, &DuplicateFieldError{Field: memberPath(path, key), Other: memberPath(path, other), Column: c.name}
		}
		from[c] = key
		cv, err := p.value(c, v, memberPath(path, key))
		if err != nil {
			return nil, 0, err
		}
		out[c.name] = cv
	}
	return out, len(from), nil
}

// value converts one value to the Go value its column stores (string,
// int64, float64, bool, time.Time, map[string]any, []any), by the
// conversion table of the package documentation.
func (p *projector) value(s *shape, v any, path string) (any, error) {
	if v == nil {
		return nil, nil
	}
	var (
		out any
		ok  bool
	)
	switch s.k {
	case kString:
		out, ok = toText(v), true
	case kLong:
		out, ok = convertLong(v)
	case kDouble:
		out, ok = convertDouble(v)
	case kBoolean:
		out, ok = v.(bool)
	case kTimestamp:
		if us, isTime := toMicros(v); isTime {
			out, ok = time.UnixMicro(us).UTC(), true
		}
	case kStruct:
		if obj, isObj := asObject(v); isObj {
			m, _, err := p.object(s, obj, path)
			return m, err
		}
	case kArray:
		if list, isList := v.([]any); isList {
			return p.elements(s, list, path)
		}
	}
	if !ok {
		return nil, &ConversionError{Field: path, ColumnType: s.t.String(), Value: cutText(jsonText(v))}
	}
	return out, nil
}

// elements converts the elements of an array for array column s.
func (p *projector) elements(s *shape, list []any, path string) ([]any, error) {
	out := make([]any, len(list))
	for i, e := range list {
		v, err := p.value(s.elem, e, path+"[]")
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// convertLong converts a value for a long column: an integer in int64's
// range, a number with a fraction or exponent whose value is such an
// integer (2.0, 1e3), and a boolean as 1 or 0.
func convertLong(v any) (any, bool) {
	if b, isBool := v.(bool); isBool {
		if b {
			return int64(1), true
		}
		return int64(0), true
	}
	i, ok := rows.Int64(v)
	return i, ok
}

// convertDouble converts a value for a double column: any number in a
// double's range (rounded to the nearest double), and a boolean as 1.0 or
// 0.0.
func convertDouble(v any) (any, bool) {
	if b, isBool := v.(bool); isBool {
		if b {
			return 1.0, true
		}
		return 0.0, true
	}
	f, ok := toFloat64(v)
	return f, ok
}

// report returns the dropped fields in path order.
func (p *projector) report() []DroppedField {
	out := make([]DroppedField, 0, len(p.dropped))
	for _, f := range p.dropped {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// memberPath is the path of member key of the value at path.
func memberPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// cutText cuts s to 100 characters, marking the cut with "…".
func cutText(s string) string {
	const limit = 100
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return string(r[:limit]) + "…"
}
