package delta

import (
	"fmt"
	"sort"
	"unsafe"

	"github.com/parquet-go/parquet-go"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// shredder turns rows into Parquet rows (values with repetition and
// definition levels, in column order) and accumulates statistics.
type shredder struct {
	p       *plan
	aliases bool // members must be matched to fields by folded names
	row     parquet.Row
}

// shred appends the Parquet values of r to dst[:0] and returns it.
func (s *shredder) shred(dst parquet.Row, r rows.Row) (parquet.Row, error) {
	s.row = dst[:0]
	if err := s.object(s.p.root, r, 0); err != nil {
		return nil, err
	}
	if s.p.sortRows {
		// Elements of an array with several leaf columns come out element
		// by element; Parquet wants them column by column, each column's
		// values in their original order.
		sort.SliceStable(s.row, func(i, j int) bool { return s.row[i].Column() < s.row[j].Column() })
	}
	return s.row, nil
}

func (s *shredder) emit(v parquet.Value) { s.row = append(s.row, v) }

// appendText appends a string value of leaf c at repetition level rep,
// counting it in c's statistics.
func appendText(dst parquet.Row, c *column, t string, rep int) parquet.Row {
	if c.stats != nil {
		c.stats.str(t)
	}
	return append(dst, parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(t), len(t))).Level(rep, c.def, c.leaf))
}

// appendLong appends an INT64 value (a long, or a timestamp's
// microseconds) of leaf c, counting it in c's statistics.
func appendLong(dst parquet.Row, c *column, i int64, rep int) parquet.Row {
	if c.stats != nil {
		c.stats.int(i)
	}
	return append(dst, parquet.Int64Value(i).Level(rep, c.def, c.leaf))
}

// appendDouble appends a double value of leaf c, counting it in c's
// statistics.
func appendDouble(dst parquet.Row, c *column, f float64, rep int) parquet.Row {
	if c.stats != nil {
		c.stats.float(f)
	}
	return append(dst, parquet.DoubleValue(f).Level(rep, c.def, c.leaf))
}

// object shreds the members of a struct value.
func (s *shredder) object(c *column, obj map[string]any, rep int) error {
	if !s.aliases {
		for _, ch := range c.children {
			if err := s.value(ch, obj[ch.name], rep); err != nil {
				return err
			}
		}
		return nil
	}
	vals := make(map[*column]any, len(obj))
	for k, v := range obj {
		ch := c.lookup(k)
		if ch == nil {
			return fmt.Errorf("no column for member %q", k)
		}
		vals[ch] = v
	}
	for _, ch := range c.children {
		if err := s.value(ch, vals[ch], rep); err != nil {
			return err
		}
	}
	return nil
}

// value shreds one value of field c at repetition level rep.
func (s *shredder) value(c *column, v any, rep int) error {
	if v == nil {
		s.nulls(c, rep, c.def-1)
		if c.stats != nil {
			c.countNull()
		}
		return nil
	}
	switch c.kind {
	case kString:
		s.row = appendText(s.row, c, toText(v), rep)
		return nil
	case kLong:
		i, ok := rows.Int64(v)
		if !ok {
			return s.mismatch(c, v)
		}
		s.row = appendLong(s.row, c, i, rep)
		return nil
	case kDouble:
		f, ok := toFloat64(v)
		if !ok {
			return s.mismatch(c, v)
		}
		s.row = appendDouble(s.row, c, f, rep)
		return nil
	case kBoolean:
		b, ok := v.(bool)
		if !ok {
			return s.mismatch(c, v)
		}
		s.row = append(s.row, parquet.BooleanValue(b).Level(rep, c.def, c.leaf))
		return nil
	case kTimestamp:
		us, ok := toMicros(v)
		if !ok {
			return s.mismatch(c, v)
		}
		s.row = appendLong(s.row, c, us, rep)
		return nil
	case kStruct:
		obj, ok := asObject(v)
		if !ok {
			return s.mismatch(c, v)
		}
		return s.object(c, obj, rep)
	case kArray:
		return s.array(c, v, rep)
	default:
		return s.mismatch(c, v)
	}
}

// array shreds the non-null list v of array field c at repetition level
// rep: its first element at rep, the others at the field's own level.
func (s *shredder) array(c *column, v any, rep int) error {
	list, ok := v.([]any)
	if !ok {
		return s.mismatch(c, v)
	}
	if len(list) == 0 {
		s.nulls(c, rep, c.def) // a list with no elements
		return nil
	}
	for i, e := range list {
		r := rep
		if i > 0 {
			r = c.rep
		}
		if err := s.value(c.elem, e, r); err != nil {
			return err
		}
	}
	return nil
}

// nulls emits one null value, at definition level def, for every leaf
// column under c.
func (s *shredder) nulls(c *column, rep, def int) {
	for _, leaf := range c.leaves {
		s.emit(parquet.NullValue().Level(rep, def, leaf))
	}
}

// countNull counts a null of c, and of every member of a null struct.
func (c *column) countNull() {
	if c.kind == kStruct {
		for _, ch := range c.children {
			ch.countNull()
		}
		return
	}
	c.stats.nulls++
}

// mismatch reports a value the evolved schema should have accepted.
func (s *shredder) mismatch(c *column, v any) error {
	return fmt.Errorf("shred %s value into column %q: %w", valueType(v), c.name, errInternal)
}
