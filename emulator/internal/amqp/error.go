package amqp

import (
	"errors"
	"fmt"
)

// Error conditions of the spec (part 2, sections 2.8.15 to 2.8.18).
const (
	CondInternalError         Symbol = "amqp:internal-error"
	CondNotFound              Symbol = "amqp:not-found"
	CondUnauthorizedAccess    Symbol = "amqp:unauthorized-access"
	CondDecodeError           Symbol = "amqp:decode-error"
	CondResourceLimitExceeded Symbol = "amqp:resource-limit-exceeded"
	CondNotAllowed            Symbol = "amqp:not-allowed"
	CondInvalidField          Symbol = "amqp:invalid-field"
	CondNotImplemented        Symbol = "amqp:not-implemented"
	CondResourceLocked        Symbol = "amqp:resource-locked"
	CondPreconditionFailed    Symbol = "amqp:precondition-failed"
	CondResourceDeleted       Symbol = "amqp:resource-deleted"
	CondIllegalState          Symbol = "amqp:illegal-state"
	CondFrameSizeTooSmall     Symbol = "amqp:frame-size-too-small"

	CondConnectionForced Symbol = "amqp:connection:forced"
	CondFramingError     Symbol = "amqp:connection:framing-error"
	CondConnRedirect     Symbol = "amqp:connection:redirect"

	CondWindowViolation  Symbol = "amqp:session:window-violation"
	CondErrantLink       Symbol = "amqp:session:errant-link"
	CondHandleInUse      Symbol = "amqp:session:handle-in-use"
	CondUnattachedHandle Symbol = "amqp:session:unattached-handle"

	CondDetachForced          Symbol = "amqp:link:detach-forced"
	CondTransferLimitExceeded Symbol = "amqp:link:transfer-limit-exceeded"
	CondMessageSizeExceeded   Symbol = "amqp:link:message-size-exceeded"
	CondLinkRedirect          Symbol = "amqp:link:redirect"
	CondStolen                Symbol = "amqp:link:stolen"
)

// Error is the error composite (0x1d) carried by close, end, detach and
// rejected.
type Error struct {
	Condition   Symbol
	Description string
	Info        Map
}

// Error formats the condition and description.
func (e *Error) Error() string {
	if e.Description == "" {
		return string(e.Condition)
	}
	return fmt.Sprintf("%s: %s", e.Condition, e.Description)
}

// value returns the described list of e, null for a nil e.
func (e *Error) value() any {
	if e == nil {
		return nil
	}
	return describe(descError, []any{e.Condition, nonZero(e.Description), mapField(e.Info)})
}

// decodeErrorField decodes an optional error field.
func decodeErrorField(v any) (*Error, error) {
	if v == nil {
		return nil, nil
	}
	l, err := describedList(v, descError)
	if err != nil {
		return nil, err
	}
	r := fieldReader{what: "error", fields: l}
	e := &Error{
		Condition:   mandatory[Symbol](&r, "condition"),
		Description: orDefault(&r, "description", ""),
		Info:        orDefault[Map](&r, "info", nil),
	}
	return e, r.err
}

// Condition returns the error condition a peer should be sent for a
// failure of this package: amqp:connection:framing-error for a broken or
// oversized frame, amqp:decode-error for bytes that do not decode, and
// amqp:internal-error for anything else (an I/O error, an encoding bug).
func Condition(err error) Symbol {
	switch {
	case errors.Is(err, ErrFraming), errors.Is(err, ErrNotAMQP):
		return CondFramingError
	case errors.Is(err, ErrMalformed):
		return CondDecodeError
	}
	return CondInternalError
}
