package delta

import (
	"fmt"
	"sort"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// column is one field of the write plan: how the values of a Delta field
// are shredded into Parquet leaf columns.
type column struct {
	name     string
	kind     kind
	def      int // definition level of a non-null value of this field
	rep      int // repetition level of this array's list
	leaf     int // Parquet column index (primitives)
	leaves   []int
	children []*column // struct members, in Parquet column order
	byName   map[string]*column
	byFold   map[string]*column
	elem     *column
	stats    *columnStats // nil under an array
}

// plan is a compiled table schema: the Parquet schema of the data files and
// the shredding tree.
type plan struct {
	schema   Schema
	parquet  *parquet.Schema
	root     *column
	numLeafs int
	sortRows bool // an array has elements of more than one leaf column
}

// compile builds the Parquet schema for a Delta schema: every field is
// OPTIONAL; string is BYTE_ARRAY (STRING), long INT64 (INT(64,signed)),
// double DOUBLE, boolean BOOLEAN, timestamp INT64 TIMESTAMP(MICROS,
// isAdjustedToUTC=true); a struct is an optional group; an array is the
// standard three-level LIST (optional group (LIST) { repeated group list {
// optional element } }).
func compile(s Schema) (*plan, error) {
	group := parquet.Group{}
	for _, f := range s.Fields {
		n, err := parquetNode(f.Type)
		if err != nil {
			return nil, fmt.Errorf("compile column %q: %w", f.Name, err)
		}
		group[f.Name] = n
	}
	ps := parquet.NewSchema("spark_schema", group)
	index := map[string]int{}
	for i, path := range ps.Columns() {
		index[strings.Join(path, "\x00")] = i
	}
	p := &plan{schema: s, parquet: ps, numLeafs: len(index)}
	root := &column{kind: kStruct}
	for _, f := range s.Fields {
		c, err := p.column(f.Name, f.Type, []string{f.Name}, 1, 0, true, index)
		if err != nil {
			return nil, err
		}
		root.children = append(root.children, c)
	}
	root.finishStruct()
	p.root = root
	return p, nil
}

// parquetNode returns the Parquet node of a Delta type.
func parquetNode(t DataType) (parquet.Node, error) {
	var n parquet.Node
	switch kindOf(t.Name) {
	case kString:
		n = parquet.String()
	case kLong:
		n = parquet.Int(64)
	case kDouble:
		n = parquet.Leaf(parquet.DoubleType)
	case kBoolean:
		n = parquet.Leaf(parquet.BooleanType)
	case kTimestamp:
		n = parquet.Timestamp(parquet.Microsecond)
	case kStruct:
		if len(t.Fields) == 0 {
			return nil, fmt.Errorf("struct without fields")
		}
		g := parquet.Group{}
		for _, f := range t.Fields {
			c, err := parquetNode(f.Type)
			if err != nil {
				return nil, fmt.Errorf("member %q: %w", f.Name, err)
			}
			g[f.Name] = c
		}
		n = g
	case kArray:
		e, err := parquetNode(*t.Element)
		if err != nil {
			return nil, fmt.Errorf("element: %w", err)
		}
		n = parquet.List(e)
	default:
		return nil, fmt.Errorf("type %s is not supported", t)
	}
	return parquet.Optional(n), nil
}

// column builds the shredding node of a field whose non-null values have
// definition level def and whose enclosing lists have repetition level rep.
func (p *plan) column(name string, t DataType, path []string, def, rep int, stats bool, index map[string]int) (*column, error) {
	c := &column{name: name, kind: kindOf(t.Name), def: def}
	if stats {
		c.stats = &columnStats{kind: c.kind}
	}
	switch c.kind {
	case kStruct:
		for _, f := range t.Fields {
			child, err := p.column(f.Name, f.Type, append(path[:len(path):len(path)], f.Name), def+1, rep, stats, index)
			if err != nil {
				return nil, err
			}
			c.children = append(c.children, child)
		}
		c.finishStruct()
	case kArray:
		c.rep = rep + 1
		elemPath := append(path[:len(path):len(path)], "list", "element")
		elem, err := p.column("element", *t.Element, elemPath, def+2, rep+1, false, index)
		if err != nil {
			return nil, err
		}
		c.elem = elem
		c.leaves = elem.leaves
		if len(elem.leaves) > 1 {
			p.sortRows = true
		}
	default:
		leaf, ok := index[strings.Join(path, "\x00")]
		if !ok {
			return nil, fmt.Errorf("no Parquet column for %q", strings.Join(path, "."))
		}
		c.leaf = leaf
		c.leaves = []int{leaf}
	}
	return c, nil
}

// finishStruct orders the members by Parquet column (the order in which a
// depth-first walk emits increasing column indexes) and indexes their names.
func (c *column) finishStruct() {
	sort.SliceStable(c.children, func(i, j int) bool {
		return c.children[i].leaves[0] < c.children[j].leaves[0]
	})
	c.byName = make(map[string]*column, len(c.children))
	c.byFold = make(map[string]*column, len(c.children))
	for _, ch := range c.children {
		c.byName[ch.name] = ch
		c.byFold[foldName(ch.name)] = ch
	}
	c.leaves = nil
	for _, ch := range c.children {
		c.leaves = append(c.leaves, ch.leaves...)
	}
}

// lookup finds the member that stores key (see node.lookup).
func (c *column) lookup(key string) *column {
	if ch := c.byName[key]; ch != nil {
		return ch
	}
	return c.byFold[foldName(columnName(key))]
}
