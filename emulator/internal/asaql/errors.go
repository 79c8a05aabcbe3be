package asaql

import "fmt"

// Error is why a query is refused: a construct outside the subset
// (Unsupported) or a query that does not read (a syntax error).
type Error struct {
	// Pos is the byte offset in the query where the fault was found.
	Pos int
	// Construct names what is not supported ("JOIN"); "" for a syntax error.
	Construct string
	// Message says what is wrong, in the query's terms.
	Message string
}

// Unsupported reports whether e refuses a construct outside the subset.
func (e *Error) Unsupported() bool { return e.Construct != "" }

// Error renders e.
func (e *Error) Error() string {
	if e.Construct != "" {
		msg := fmt.Sprintf("%s is not supported in the SQL operator (at offset %d)", e.Construct, e.Pos)
		if e.Message != "" {
			msg += ": " + e.Message
		}
		return msg
	}
	return fmt.Sprintf("query at offset %d: %s", e.Pos, e.Message)
}

// unsupported refuses construct at pos, with an optional reason.
func unsupported(pos int, construct, reason string) *Error {
	return &Error{Pos: pos, Construct: construct, Message: reason}
}

// syntax refuses a query that does not read at pos.
func syntax(pos int, format string, args ...any) *Error {
	return &Error{Pos: pos, Message: fmt.Sprintf(format, args...)}
}
