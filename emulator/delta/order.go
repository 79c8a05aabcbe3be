package delta

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// FieldOrder is the order of an object's members as its producer wrote
// them, which a row (a Go map) does not keep: Names first to last and, in
// Nested, the order of the members of each member whose value is an
// object or an array of objects (for an array, the members of all its
// objects in the order they first appear). A nil *FieldOrder is no order.
type FieldOrder struct {
	Names  []string
	Nested map[string]*FieldOrder
}

// JSONFieldOrder returns the member order of the JSON object text starts
// with, nested objects included, and nil when text does not start with a
// whole JSON object (or it nests deeper than rows.MaxDepth). It reads text token by token, once: call
// it for the row that makes a table's schema, not for every row.
func JSONFieldOrder(text []byte) *FieldOrder {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	o := &FieldOrder{}
	if err := o.members(dec, 1); err != nil {
		return nil
	}
	return o // what follows the object is not read, as package rows does not
}

// errTooDeep stops JSONFieldOrder on a value nested beyond rows.MaxDepth.
var errTooDeep = errors.New("nested too deeply")

// members reads an object's members up to and including its closing
// brace, at nesting depth depth (the outermost object is 1).
func (o *FieldOrder) members(dec *json.Decoder, depth int) error {
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		o.add(key)
		if err := o.value(dec, key, depth); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	return err
}

// value reads the value of member key: the members of an object, and of
// the objects in an array, go into key's nested order.
func (o *FieldOrder) value(dec *json.Decoder, key string, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); ok && depth >= rows.MaxDepth && (d == '{' || d == '[') {
		return errTooDeep
	}
	switch tok {
	case json.Delim('{'):
		return o.child(key).members(dec, depth+1)
	case json.Delim('['):
		for dec.More() {
			if err := o.value(dec, key, depth+1); err != nil {
				return err
			}
		}
		_, err = dec.Token() // ']'
	}
	return err
}

// add appends name unless it is there already (a repeated member keeps
// its first place).
func (o *FieldOrder) add(name string) {
	for _, n := range o.Names {
		if n == name {
			return
		}
	}
	o.Names = append(o.Names, name)
}

// child returns the nested order of member key, made on first use.
func (o *FieldOrder) child(key string) *FieldOrder {
	if o.Nested == nil {
		o.Nested = map[string]*FieldOrder{}
	}
	c := o.Nested[key]
	if c == nil {
		c = &FieldOrder{}
		o.Nested[key] = c
	}
	return c
}

// ordered returns fields sorted by order: the fields it names (matched as
// members match columns, by column name, case-insensitively) first, in
// its order, then the others in their present order. The members of
// struct fields, and of structs in arrays, follow the nested orders.
// fields is not modified.
func ordered(fields []Field, order *FieldOrder) []Field {
	if order == nil {
		return fields
	}
	rank := make(map[string]int, len(order.Names))
	nested := make(map[string]*FieldOrder, len(order.Nested))
	for i, name := range order.Names {
		col := foldName(columnName(name))
		if _, seen := rank[col]; !seen {
			rank[col] = i
			nested[col] = order.Nested[name]
		}
	}
	out := make([]Field, len(fields))
	for i, f := range fields {
		out[i] = Field{Name: f.Name, Type: orderedType(f.Type, nested[foldName(f.Name)])}
	}
	sort.SliceStable(out, func(i, j int) bool {
		ri, iNamed := rank[foldName(out[i].Name)]
		rj, jNamed := rank[foldName(out[j].Name)]
		if iNamed && jNamed {
			return ri < rj
		}
		return iNamed && !jNamed
	})
	return out
}

// orderedType orders the members of a struct type, or of the structs
// an array type holds.
func orderedType(t DataType, order *FieldOrder) DataType {
	if order == nil {
		return t
	}
	switch t.Name {
	case TypeStruct:
		return StructOf(ordered(t.Fields, order)...)
	case TypeArray:
		if t.Element != nil {
			return ArrayOf(orderedType(*t.Element, order))
		}
	}
	return t
}
