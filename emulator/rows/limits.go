package rows

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on the events that become rows, chosen so that every table the
// emulator writes can be read by Spark and delta-rs, and so that no
// operator can make a row larger than an event may be.
const (
	// MaxDepth is how deeply objects and arrays may nest in a row, the
	// row's own object counted as level 1: {"a":1} is 1 deep, {"a":[1]} 2,
	// {"a":{"b":[{"c":1}]}} 4.
	//
	// Two readers bound it. delta-rs decodes a table's schema string with
	// serde_json, whose recursion limit (128) is reached by a column of 42
	// nested structs (each struct costs three JSON levels in the schema);
	// 41 read fine. Arrow refuses Parquet schemas of about 50 nested lists.
	// And Parquet definition levels are one byte in parquet-go (at most
	// 255): each struct adds one level and each list two, so 86 levels of
	// {"a":[…]} overflow it. 32 stays well below all three, whatever mix
	// of objects and arrays a row has (at most 97 schema levels for
	// delta-rs, 65 definition levels), and far above what real events use.
	MaxDepth = 32

	// MaxEventBytes caps one event's key, value and headers together, below
	// Kafka's default message.max.bytes (1048588) with room for batch
	// framing. The produce route refuses larger events, and an operator
	// function whose result would be larger fails instead of allocating it.
	MaxEventBytes = 999_000
)

// LimitError reports a row that breaks a limit: a value nested deeper than
// MaxDepth, or a member name no column may have (see CheckName).
type LimitError struct {
	// Path is the value's path in the row: member names joined by ".",
	// "[]" for array elements ("order.items[].qty"); empty for the row
	// itself.
	Path string
	// Reason says which limit, in the user's terms.
	Reason string
}

// Error names the field and the limit.
func (e *LimitError) Error() string {
	if e.Path == "" {
		return "the event " + e.Reason
	}
	return fmt.Sprintf("field %s %s", e.Path, e.Reason)
}

// CheckName returns why a member name cannot name a column, or "" when it
// can. Delta and Spark need a name that is not empty or blank (white space
// only), is valid UTF-8, and has no control characters (U+0000–U+001F,
// U+007F–U+009F; delta-rs refuses a NUL, Spark a newline or a tab).
// Uniqueness regardless of case is the table's to check: it depends on the
// columns the table already has.
func CheckName(name string) string {
	switch {
	case name == "":
		return "is empty"
	case !utf8.ValidString(name):
		return "is not valid UTF-8"
	}
	if i := strings.IndexFunc(name, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])
		return fmt.Sprintf("has the control character U+%04X", r)
	}
	if strings.TrimFunc(name, unicode.IsSpace) == "" {
		return "is blank (white space only)"
	}
	return ""
}

// Check returns a *LimitError for a row that nests deeper than MaxDepth or
// has a member name that CheckName refuses, at any level; nil otherwise.
func Check(r Row) error {
	return checkObject(r, "", 1)
}

// CheckValue checks the row a record value becomes, when it becomes one by
// its members (a JSON object); other values become a single text field and
// always pass.
func CheckValue(value []byte) error {
	trimmed := bytes.TrimSpace(value)
	if len(trimmed) == 0 || trimmed[0] != '{' || quickPass(trimmed) {
		return nil
	}
	obj, ok := decodeObject(trimmed)
	if !ok {
		return nil
	}
	return Check(obj)
}

// checkObject checks the members of an object at level depth.
func checkObject(obj map[string]any, path string, depth int) error {
	for key, v := range obj {
		if reason := CheckName(key); reason != "" {
			return nameError(path, key, reason)
		}
		if err := checkValue(v, joinPath(path, key), depth); err != nil {
			return err
		}
	}
	return nil
}

// checkValue checks a value held by a container at level depth.
func checkValue(v any, path string, depth int) error {
	var obj map[string]any
	var list []any
	switch x := v.(type) {
	case map[string]any:
		obj = x
	case Row:
		obj = x
	case []any:
		list = x
	default:
		return nil
	}
	if depth+1 > MaxDepth {
		return &LimitError{Path: path, Reason: fmt.Sprintf(
			"nests objects and arrays more than %d levels deep (the event's own object is level 1)", MaxDepth)}
	}
	if obj != nil {
		return checkObject(obj, path, depth+1)
	}
	for _, e := range list {
		if err := checkValue(e, path+"[]", depth+1); err != nil {
			return err
		}
	}
	return nil
}

// nameError reports member key of the object at path.
func nameError(path, key, reason string) error {
	return &LimitError{Path: path, Reason: fmt.Sprintf("has a member whose name %q %s", key, reason)}
}

// joinPath appends a member name to a path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
