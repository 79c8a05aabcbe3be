package fabricerr

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// JSON turns a decoding error into a 400 naming the field (under
// prefix, when the JSON decoded is part of a larger body) or the offset.
func JSON(prefix string, err error) *Error {
	at := func(field string) string {
		if prefix == "" {
			return field
		}
		return prefix + "." + field
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return New(http.StatusBadRequest, wire.InvalidRequest, "the request body is not valid JSON at byte %d: %v", syn.Offset, err)
	case errors.As(err, &typ):
		field := at(typ.Field)
		if typ.Field == "" {
			field = cmp.Or(prefix, "body")
		}
		return BadParameter(field, "want %s, got %s", jsonKind(typ.Type), jsonValue(typ.Value))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return New(http.StatusBadRequest, wire.InvalidRequest, "the request body is truncated JSON")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return BadParameter(at(name), "unknown field")
	}
	return New(http.StatusBadRequest, wire.InvalidRequest, "the request body is not valid JSON for this route")
}

// DescribeJSON says in JSON's terms why a document did not decode, for
// messages that keep an error code of their own.
func DescribeJSON(err error) string {
	if err == nil {
		return "got null" // decoded, but to nothing
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("not valid JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		what := fmt.Sprintf("want %s, got %s", jsonKind(typ.Type), jsonValue(typ.Value))
		if typ.Field != "" {
			return typ.Field + ": " + what
		}
		return what
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "truncated JSON"
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return "not valid JSON"
}

// jsonKind names, in JSON's terms, what a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another JSON value"
}

// jsonValue names what an UnmarshalTypeError says was sent: "object",
// "bool", "number", or "number 1e999" for a number out of range.
func jsonValue(v string) string {
	switch kind, literal, _ := strings.Cut(v, " "); kind {
	case "object", "array":
		return "an " + kind
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "number":
		if literal != "" {
			if len(literal) > 40 {
				literal = literal[:40] + "…"
			}
			return "the number " + literal + ", which is out of range or not whole"
		}
		return "a number"
	case "null":
		return "null"
	}
	return "a JSON " + v
}

// DecodeJSON decodes body, a JSON object, into v, refusing unknown
// fields: an empty body or one that does not decode is a 400 naming the
// field or the offset.
func DecodeJSON(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return New(http.StatusBadRequest, wire.InvalidRequest, "the request body is empty; a JSON object is required")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return JSON("", err)
	}
	if dec.More() {
		return New(http.StatusBadRequest, wire.InvalidRequest, "the request body has data after its JSON value")
	}
	return nil
}
