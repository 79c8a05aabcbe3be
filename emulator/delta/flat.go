package delta

import (
	"cmp"
	"encoding/json"
	"math"
	"strconv"
	"unsafe"

	"github.com/parquet-go/parquet-go"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// stageFlat is stageEnforced for a table that exists, given the batch's
// record values (WithValues): plain records go straight to Parquet values
// (flatBatch), and the rows, errors and dropped fields are
// stageEnforced's. A large batch is converted and written in parts at once
// (flatParts), a data file per part.
func (t *Table) stageFlat(st *tableState, batch []rows.Row, ao *appendOptions, staged *stagedFiles) (*Schema, error) {
	schema := st.schema.String()
	if staged.files != nil && staged.schema == schema {
		return &st.schema, nil // the same rows under the same schema: the same files
	}
	staged.remove(t.dir)
	parts := flatParts(len(batch))
	done := make([]flatPart, len(parts))
	inParallel(len(parts), func(k int) {
		done[k] = t.stagePart(st.schema, batch, ao.values, parts[k][0], parts[k][1])
	})
	var errs []error
	var failed error
	for _, d := range done {
		if d.df != nil {
			staged.files = append(staged.files, d.df)
		}
		errs = append(errs, d.errs...)
		failed = cmp.Or(failed, d.err)
	}
	if failed != nil || len(errs) > 0 {
		staged.remove(t.dir)
		if failed != nil {
			return nil, failed
		}
		return nil, &RowsError{Errs: errs}
	}
	staged.schema, staged.dropped = schema, mergeDropped(done)
	return &st.schema, nil
}

// flatPart is one part of a batch, converted and written (stagePart).
type flatPart struct {
	df      *dataFile
	dropped []DroppedField
	errs    []error // the rows' own (RowsError)
	err     error
}

// stagePart converts rows lo to hi of batch under schema s and writes them
// to a data file of their own, unless a row cannot be converted.
func (t *Table) stagePart(s Schema, batch []rows.Row, values [][]byte, lo, hi int) flatPart {
	p, err := compile(s)
	if err != nil {
		return flatPart{err: err}
	}
	f := newFlatBatch(p, hi-lo)
	for i := lo; i < hi; i++ {
		f.add(i, batch[i], values[i])
	}
	if len(f.errs) > 0 {
		return flatPart{errs: f.errs}
	}
	df, err := t.writeColumns(p, f.n, f.cols)
	f.release() // the writer copied what it kept
	return flatPart{df: df, dropped: f.proj.report(), err: err}
}

// flatBatch converts a batch for a table that exists under SchemaEnforce
// (stageFlat): a plain record (rows.ScanFlat) whose members all name
// columns exactly goes straight to Parquet values; any other row is
// decoded, projected and shredded as enforce and writeDataFile do, so the
// rows, errors and dropped fields are the same either way. The values are
// kept column by column, as writeColumns writes them.
type flatBatch struct {
	p       *plan
	index   map[string]int // top-level column by exact name → root.children index
	members []rows.Member
	slot    []int       // root.children index → member index, -1 for none
	seen    []int       // member index → the column it named last, -1 for none
	scalar  []flatValue // a row's converted values, before any is emitted

	root *shape // projection of the rows that are not plain
	proj *projector
	sh   shredder

	cols [][]parquet.Value // values of each Parquet column, row after row
	row  parquet.Row       // a shredded row's values (add)
	n    int               // rows converted
	errs []error
}

// flatValue is one converted value of a plain record.
type flatValue struct {
	null bool
	text string
	i    int64
	f    float64
	b    bool
}

func newFlatBatch(p *plan, n int) *flatBatch {
	f := &flatBatch{
		p:      p,
		index:  make(map[string]int, len(p.root.children)),
		slot:   make([]int, len(p.root.children)),
		seen:   make([]int, len(p.root.children)),
		scalar: make([]flatValue, len(p.root.children)),
		root:   newShape("", StructOf(p.schema.Fields...)),
		proj:   &projector{dropped: map[string]*DroppedField{}},
		sh:     shredder{p: p},
		cols:   make([][]parquet.Value, p.numLeafs),
	}
	for k := range f.cols {
		f.cols[k] = takeValues(n)
	}
	for k, c := range p.root.children {
		f.index[c.name] = k
		f.seen[k] = -1
	}
	return f
}

// add converts row i: its record value when that is plain, else the row
// (decoded from the value when nil).
func (f *flatBatch) add(i int, row rows.Row, value []byte) {
	if row == nil && value != nil {
		if f.plain(value) {
			return
		}
		row = rows.FromValue(value)
	}
	projected, err := f.proj.row(f.root, row)
	if err != nil {
		f.errs = append(f.errs, setRow(err, i))
		return
	}
	pr, err := f.sh.shred(f.row, projected)
	if err != nil {
		f.errs = append(f.errs, setRow(err, i))
		return
	}
	for _, v := range pr {
		k := v.Column()
		f.cols[k] = append(f.cols[k], v)
	}
	f.row = pr
	f.n++
}

// plain converts a plain record whose members all name a column exactly
// and whose values all convert; false leaves it to the projector (folded
// names, dropped fields, conversion errors and a row with no column are
// its to report).
func (f *flatBatch) plain(value []byte) bool {
	var ok bool
	if f.members, ok = rows.ScanFlat(f.members, value); !ok || len(f.members) == 0 {
		return false
	}
	for k := range f.slot {
		f.slot[k] = -1
	}
	for j, m := range f.members {
		k, found := f.column(j, m.Name)
		if !found {
			return false
		}
		f.slot[k] = j
	}
	for k, c := range f.p.root.children {
		j := f.slot[k]
		if j < 0 {
			f.scalar[k] = flatValue{null: true}
			continue
		}
		if !convertFlat(c.kind, f.members[j], &f.scalar[k]) {
			return false
		}
	}
	f.emit()
	return true
}

// column returns the top-level column named name, the j-th member of a
// record: records of a stream mostly list their members in one order, so
// the column the j-th member named last time is tried before the index.
func (f *flatBatch) column(j int, name []byte) (int, bool) {
	if j < len(f.seen) {
		if k := f.seen[j]; k >= 0 && f.p.root.children[k].name == string(name) {
			return k, true
		}
	}
	k, found := f.index[string(name)]
	if found && j < len(f.seen) {
		f.seen[j] = k
	}
	return k, found
}

// emit appends the converted row's Parquet values to their columns.
func (f *flatBatch) emit() {
	for k, c := range f.p.root.children {
		v := &f.scalar[k]
		col := &f.cols[c.leaf]
		switch {
		case v.null:
			f.nulls(c)
		case c.kind == kString:
			*col = appendText(*col, c, v.text, 0)
		case c.kind == kLong || c.kind == kTimestamp:
			*col = appendLong(*col, c, v.i, 0)
		case c.kind == kDouble:
			*col = appendDouble(*col, c, v.f, 0)
		case c.kind == kBoolean:
			*col = append(*col, parquet.BooleanValue(v.b).Level(0, c.def, c.leaf))
		}
	}
	f.n++
}

// nulls appends the null of top-level column c: one null value to each of
// its leaf columns, counted in the statistics as shredder.value counts it.
func (f *flatBatch) nulls(c *column) {
	for _, leaf := range c.leaves {
		f.cols[leaf] = append(f.cols[leaf], parquet.NullValue().Level(0, c.def-1, leaf))
	}
	if c.stats != nil {
		c.countNull()
	}
}

// convertFlat converts a plain member's value for a column of kind k by
// the conversion table (projector.value), reporting false where the
// projector would report an error or where the column is not a scalar.
func convertFlat(k kind, m rows.Member, out *flatValue) bool {
	*out = flatValue{}
	text := unsafe.String(unsafe.SliceData(m.Text), len(m.Text))
	switch m.Kind {
	case rows.Null:
		out.null = true
		return true
	case rows.True, rows.False:
		return convertFlatBool(k, m.Kind == rows.True, out)
	case rows.Number:
		return convertFlatNumber(k, text, out)
	}
	switch k {
	case kString:
		out.text = text
		return true
	case kTimestamp:
		t, ok := parseTimestamp(text)
		out.i = t.UnixMicro()
		return ok
	}
	return false
}

// convertFlatBool converts true or false: itself for a boolean column, 1
// or 0 for a long or a double, its text for a string.
func convertFlatBool(k kind, b bool, out *flatValue) bool {
	out.b = b
	if b {
		out.i, out.f, out.text = 1, 1, "true"
	} else {
		out.text = "false"
	}
	return k == kBoolean || k == kLong || k == kDouble || k == kString
}

// convertFlatNumber converts a number literal: its text for a string
// column, a lossless int64 for a long, a finite double for a double.
func convertFlatNumber(k kind, text string, out *flatValue) bool {
	switch k {
	case kString:
		out.text = text
		return true
	case kLong:
		if i, ok := parseShortInt(text); ok {
			out.i = i
			return true
		}
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			out.i = i
			return true
		}
		i, ok := rows.Int64(json.Number(text))
		out.i = i
		return ok
	case kDouble:
		if f, ok := parseShortFloat(text); ok {
			out.f = f
			return true
		}
		f, err := strconv.ParseFloat(text, 64)
		out.f = f
		return err == nil && !math.IsInf(f, 0)
	}
	return false
}
