package delta

import (
	"errors"
	"fmt"
	"sort"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// node is one column, struct member or array element of a schema being
// evolved by a batch of rows.
type node struct {
	name   string
	kind   kind
	other  string // the type name when kind is kOther
	frozen bool   // the type comes from the table and never changes
	old    int    // number of leading fields that come from the table
	fields []*node
	byName map[string]*node // exact column name → field
	byFold map[string]*node // folded column name → field
	elem   *node
}

// frozenNode builds the node of a table column of type t.
func frozenNode(name string, t DataType) *node {
	n := &node{name: name, kind: kindOf(t.Name), frozen: true}
	switch n.kind {
	case kStruct:
		n.initFields()
		for _, f := range t.Fields {
			n.addField(frozenNode(f.Name, f.Type))
		}
		n.old = len(n.fields)
	case kArray:
		n.elem = frozenNode("element", *t.Element)
	case kOther:
		n.other = t.Name
	}
	return n
}

func (n *node) initFields() {
	n.fields = nil
	n.byName = map[string]*node{}
	n.byFold = map[string]*node{}
}

func (n *node) addField(c *node) {
	n.fields = append(n.fields, c)
	n.byName[c.name] = c
	n.byFold[foldName(c.name)] = c
}

// setKind gives a node that is not frozen a new kind, dropping its children.
func (n *node) setKind(k kind) {
	n.kind = k
	n.fields, n.byName, n.byFold, n.elem = nil, nil, nil, nil
	switch k {
	case kStruct:
		n.initFields()
	case kArray:
		n.elem = &node{name: "element"}
	}
}

// lookup finds the field that stores member key, if any.
func (n *node) lookup(key string) *node {
	if c := n.byName[key]; c != nil {
		return c
	}
	return n.byFold[foldName(columnName(key))]
}

// dataType returns the final type of n: null-only fields become string, an
// object that never had a member becomes string (its JSON text), and new
// struct members follow the existing ones in name order.
func (n *node) dataType() DataType {
	switch n.kind {
	case kNull, kString:
		return Primitive(TypeString)
	case kStruct:
		if len(n.fields) == 0 && !n.frozen {
			return Primitive(TypeString)
		}
		added := n.fields[n.old:]
		sort.Slice(added, func(i, j int) bool { return added[i].name < added[j].name })
		fields := make([]Field, len(n.fields))
		for i, c := range n.fields {
			fields[i] = Field{Name: c.name, Type: c.dataType()}
		}
		return StructOf(fields...)
	case kArray:
		return ArrayOf(n.elem.dataType())
	case kOther:
		return Primitive(n.other)
	default:
		return Primitive(n.kind.name())
	}
}

// evolver checks a batch against a table schema and infers the new fields.
type evolver struct {
	root    *node
	aliases bool // some member name differs from the name of its column
}

// evolution is the outcome of a batch against a table schema.
type evolution struct {
	schema  Schema // the table's schema after the batch
	changed bool   // the batch adds columns or struct members
	aliases bool   // rows must be matched to columns by folded names
}

// evolve checks every value of the batch against the table schema and infers
// the types of new fields, by the rules in the package documentation. It
// returns a *SchemaConflictError or *DuplicateFieldError for a batch that
// cannot be written.
func evolve(table Schema, batch []rows.Row) (*evolution, error) {
	e := &evolver{root: frozenNode("", StructOf(table.Fields...))}
	for i, r := range batch {
		var le *rows.LimitError
		if err := rows.Check(r); errors.As(err, &le) {
			return nil, &RowLimitError{Err: le, Row: i}
		}
		if err := e.object(e.root, r); err != nil {
			return nil, withRow(err, i)
		}
	}
	schema := Schema{Fields: e.root.dataType().Fields}
	return &evolution{
		schema:  schema,
		changed: schema.String() != table.String(),
		aliases: e.aliases,
	}, nil
}

// InferSchema returns the schema that a new table would get from a batch of
// rows, by the rules in the package documentation.
func InferSchema(batch []rows.Row) (Schema, error) {
	ev, err := evolve(Schema{}, batch)
	if err != nil {
		return Schema{}, fmt.Errorf("infer schema: %w", err)
	}
	return ev.schema, nil
}

// value observes one value stored in node n.
func (e *evolver) value(n *node, v any) error {
	if v == nil {
		return nil
	}
	if n.frozen {
		return e.accept(n, v)
	}
	if n.kind == kString {
		return nil // a string column holds any value as text
	}
	k, err := classify(v)
	if err != nil {
		return err
	}
	switch {
	case n.kind == kNull:
		n.setKind(k)
	case n.kind == k:
	case n.kind == kLong && k == kDouble, n.kind == kDouble && k == kLong:
		n.kind = kDouble
		return nil
	default: // timestamp and string, or kinds with nothing in common
		n.setKind(kString)
		return nil
	}
	switch k {
	case kStruct:
		obj, _ := asObject(v)
		return e.object(n, obj)
	case kArray:
		return e.elements(n, v.([]any))
	}
	return nil
}

// accept checks a value against a column whose type is fixed, and observes
// the members and elements of structs and arrays.
func (e *evolver) accept(n *node, v any) error {
	ok := false
	switch n.kind {
	case kString:
		return nil
	case kLong:
		_, ok = rows.Int64(v)
	case kDouble:
		_, ok = toFloat64(v)
	case kBoolean:
		_, ok = v.(bool)
	case kTimestamp:
		_, ok = toMicros(v)
	case kStruct:
		if obj, isObj := asObject(v); isObj {
			return e.object(n, obj)
		}
	case kArray:
		if list, isList := v.([]any); isList {
			return e.elements(n, list)
		}
	}
	if ok {
		return nil
	}
	return &SchemaConflictError{TableType: n.dataType().String(), EventType: valueType(v)}
}

// elements observes the elements of an array stored in node n.
func (e *evolver) elements(n *node, list []any) error {
	for _, el := range list {
		if err := e.value(n.elem, el); err != nil {
			return withPath(err, "[]")
		}
	}
	return nil
}

// object observes the members of an object stored in struct node n, adding
// a field for each member that has none.
func (e *evolver) object(n *node, obj map[string]any) error {
	for key, v := range obj {
		c, err := e.field(n, obj, key)
		if err != nil {
			return err
		}
		if err := e.value(c, v); err != nil {
			return withPath(err, key)
		}
	}
	return nil
}

// field returns the field of n that stores member key of obj, creating it
// when there is none, and rejects an object with two members for one field.
func (e *evolver) field(n *node, obj map[string]any, key string) (*node, error) {
	if c := n.byName[key]; c != nil {
		return c, nil
	}
	name := columnName(key)
	c := n.byFold[foldName(name)]
	if c == nil {
		c = &node{name: name}
		n.addField(c)
		if name == key {
			return c, nil
		}
	}
	e.aliases = true
	for other := range obj {
		if other != key && n.lookup(other) == c {
			return nil, &DuplicateFieldError{Field: key, Other: other, Column: c.name}
		}
	}
	return c, nil
}

// valueType returns the type inferred for one value, for error messages.
func valueType(v any) string {
	n := &node{}
	var e evolver
	if err := e.value(n, v); err != nil {
		return fmt.Sprintf("%T", v)
	}
	return n.dataType().String()
}
