package delta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Delta Lake type names. The first five are the primitives this package
// infers and writes; TypeStruct and TypeArray name the nested types.
const (
	TypeString    = "string"
	TypeLong      = "long"
	TypeDouble    = "double"
	TypeBoolean   = "boolean"
	TypeTimestamp = "timestamp"
	TypeStruct    = "struct"
	TypeArray     = "array"
)

// DataType is a Delta Lake data type: a primitive named by Name (one of the
// Type* constants, or another Delta primitive name read from a table that
// this package did not create), a struct (Name TypeStruct, with Fields) or an
// array (Name TypeArray, with Element). Every field and every array element
// is nullable.
type DataType struct {
	Name    string
	Fields  []Field   // struct members in schema order; only for TypeStruct
	Element *DataType // element type; only for TypeArray
}

// Field is one named, nullable column of a Schema or member of a struct.
type Field struct {
	Name string
	Type DataType
}

// Schema is a Delta table schema: its top-level columns in schema order.
type Schema struct {
	Fields []Field
}

// Primitive returns the DataType of a primitive type name.
func Primitive(name string) DataType { return DataType{Name: name} }

// StructOf returns a struct DataType with the given members.
func StructOf(fields ...Field) DataType { return DataType{Name: TypeStruct, Fields: fields} }

// ArrayOf returns an array DataType whose (nullable) elements have type elem.
func ArrayOf(elem DataType) DataType { return DataType{Name: TypeArray, Element: &elem} }

// String renders t in Spark's simple-string form, for example "long",
// "array<string>" or "struct<a:long,b:array<double>>".
func (t DataType) String() string {
	var b strings.Builder
	t.writeString(&b)
	return b.String()
}

func (t DataType) writeString(b *strings.Builder) {
	switch t.Name {
	case TypeStruct:
		b.WriteString("struct<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(f.Name)
			b.WriteByte(':')
			f.Type.writeString(b)
		}
		b.WriteByte('>')
	case TypeArray:
		b.WriteString("array<")
		if t.Element != nil {
			t.Element.writeString(b)
		}
		b.WriteByte('>')
	default:
		b.WriteString(t.Name)
	}
}

// Equal reports whether t and u are the same type, member names included.
func (t DataType) Equal(u DataType) bool { return t.String() == u.String() }

// clone returns a deep copy of t.
func (t DataType) clone() DataType {
	c := DataType{Name: t.Name}
	if t.Fields != nil {
		c.Fields = make([]Field, len(t.Fields))
		for i, f := range t.Fields {
			c.Fields[i] = Field{Name: f.Name, Type: f.Type.clone()}
		}
	}
	if t.Element != nil {
		e := t.Element.clone()
		c.Element = &e
	}
	return c
}

// String renders s as a struct type, for example "struct<id:long,name:string>".
func (s Schema) String() string { return StructOf(s.Fields...).String() }

// Names returns the top-level column names in schema order.
func (s Schema) Names() []string {
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	return names
}

// Field returns the top-level column called name (compared exactly).
func (s Schema) Field(name string) (Field, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// clone returns a deep copy of s.
func (s Schema) clone() Schema {
	return Schema{Fields: StructOf(s.Fields...).clone().Fields}
}

// jsonField is one field of Delta's schema serialization format.
type jsonField struct {
	Name     string          `json:"name"`
	Type     json.RawMessage `json:"type"`
	Nullable bool            `json:"nullable"`
	Metadata json.RawMessage `json:"metadata"`
}

// MarshalJSON encodes s in Delta's schema serialization format (the
// metaData.schemaString of a table), every field nullable.
func (s Schema) MarshalJSON() ([]byte, error) {
	return StructOf(s.Fields...).MarshalJSON()
}

// UnmarshalJSON decodes s from Delta's schema serialization format.
func (s *Schema) UnmarshalJSON(data []byte) error {
	var t DataType
	if err := t.UnmarshalJSON(data); err != nil {
		return err
	}
	if t.Name != TypeStruct {
		return fmt.Errorf("decode schema: top-level type is %s, not struct", t)
	}
	s.Fields = t.Fields
	return nil
}

// MarshalJSON encodes t in Delta's schema serialization format: a JSON
// string for a primitive, an object for a struct or an array.
func (t DataType) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := t.encode(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (t DataType) encode(b *bytes.Buffer) error {
	switch t.Name {
	case TypeStruct:
		b.WriteString(`{"type":"struct","fields":[`)
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			name, err := json.Marshal(f.Name)
			if err != nil {
				return fmt.Errorf("encode field name: %w", err)
			}
			b.WriteString(`{"name":`)
			b.Write(name)
			b.WriteString(`,"type":`)
			if err := f.Type.encode(b); err != nil {
				return err
			}
			b.WriteString(`,"nullable":true,"metadata":{}}`)
		}
		b.WriteString(`]}`)
	case TypeArray:
		if t.Element == nil {
			return fmt.Errorf("encode array type: no element type")
		}
		b.WriteString(`{"type":"array","elementType":`)
		if err := t.Element.encode(b); err != nil {
			return err
		}
		b.WriteString(`,"containsNull":true}`)
	case "":
		return fmt.Errorf("encode type: empty type name")
	default:
		name, err := json.Marshal(t.Name)
		if err != nil {
			return fmt.Errorf("encode type name: %w", err)
		}
		b.Write(name)
	}
	return nil
}

// UnmarshalJSON decodes t from Delta's schema serialization format. Map
// types are rejected: this package neither writes nor reads them.
func (t *DataType) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var name string
		if err := json.Unmarshal(data, &name); err != nil {
			return fmt.Errorf("decode type name: %w", err)
		}
		*t = DataType{Name: name}
		return nil
	}
	var obj struct {
		Type        string          `json:"type"`
		Fields      []jsonField     `json:"fields"`
		ElementType json.RawMessage `json:"elementType"`
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("decode type: %w", err)
	}
	switch obj.Type {
	case TypeStruct:
		fields := make([]Field, 0, len(obj.Fields))
		for _, jf := range obj.Fields {
			var ft DataType
			if err := ft.UnmarshalJSON(jf.Type); err != nil {
				return fmt.Errorf("decode field %q: %w", jf.Name, err)
			}
			fields = append(fields, Field{Name: jf.Name, Type: ft})
		}
		*t = DataType{Name: TypeStruct, Fields: fields}
	case TypeArray:
		var et DataType
		if err := et.UnmarshalJSON(obj.ElementType); err != nil {
			return fmt.Errorf("decode array element: %w", err)
		}
		*t = DataType{Name: TypeArray, Element: &et}
	default:
		return fmt.Errorf("decode type: unsupported complex type %q", obj.Type)
	}
	return nil
}
