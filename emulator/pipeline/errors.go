package pipeline

import "fmt"

// Error codes a REST caller answers with when Parse or New refuses operators.
const (
	// CodeNotSupported is answered (400) for a *NotSupportedError.
	CodeNotSupported = "EventstreamOperatorNotSupported"
	// CodeInvalidInput is answered (400) for a *ValidationError.
	CodeInvalidInput = "InvalidInput"
)

// ValidationError reports operators that are malformed: a missing or
// mistyped field, an unknown operator type or function, conflicting
// settings. Field names the JSON path at fault, for example
// "operators[1].aggregates[0].fn"; it is empty when the document as a whole
// is at fault (malformed JSON).
type ValidationError struct {
	Field   string
	Message string
}

// Error returns "field: message".
func (e *ValidationError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// ErrorCode returns CodeInvalidInput.
func (e *ValidationError) ErrorCode() string { return CodeInvalidInput }

// NotSupportedError reports an operator, window kind, function or unit that
// Fabric has but this emulator refuses by name: SQL, percentile and
// deviation functions, calendar duration units. Field names the JSON path at fault,
// Name the refused thing and Reason says why.
type NotSupportedError struct {
	Field  string
	Name   string
	Reason string
}

// Error returns "field: Name is not supported by the emulator: reason".
func (e *NotSupportedError) Error() string {
	msg := fmt.Sprintf("%s is not supported by the emulator: %s", e.Name, e.Reason)
	if e.Field == "" {
		return msg
	}
	return e.Field + ": " + msg
}

// ErrorCode returns CodeNotSupported.
func (e *NotSupportedError) ErrorCode() string { return CodeNotSupported }

func invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Message: fmt.Sprintf(format, args...)}
}

func notSupported(field, name, reason string) error {
	return &NotSupportedError{Field: field, Name: name, Reason: reason}
}

// join appends a member name to a JSON path.
func join(path, member string) string {
	if !isIdent(member) {
		return fmt.Sprintf("%s[%q]", path, member)
	}
	if path == "" {
		return member
	}
	return path + "." + member
}

// index appends an array index to a JSON path.
func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
		case i > 0 && r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return true
}
