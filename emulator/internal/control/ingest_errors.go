package control

import (
	"fmt"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// Kind classifies a refusal of the ingest seam; each door maps it to its
// protocol (an HTTP status, a Kafka error code, an AMQP condition).
type Kind uint8

// The kinds of Error.
const (
	// NotFound: the workspace, Eventstream or node does not exist (for
	// this caller).
	NotFound Kind = iota + 1
	// Forbidden: the caller's role is not enough, or its key may not send
	// to this node.
	Forbidden
	// Unauthenticated: the credentials are not those of a key this
	// emulator handed out, or no longer are.
	Unauthenticated
	// ReadOnly: the node takes no events (a DerivedStream).
	ReadOnly
	// Paused: the node or its Eventstream is paused.
	Paused
	// TooLarge: an event exceeds the size limit.
	TooLarge
	// Unsupported: an event's value cannot become a table row.
	Unsupported
	// NoBroker: the emulator runs without a Kafka broker.
	NoBroker
	// Unavailable: the broker refused or did not acknowledge events.
	Unavailable
)

// Error is a refusal of the ingest seam: a Kind for the door's protocol,
// Fabric's errorCode and a message for the caller.
type Error struct {
	Kind      Kind
	ErrorCode wire.ErrorCode
	Message   string
	// ResourceID and ResourceType name what the error is about, when one
	// thing is.
	ResourceID, ResourceType string
	// Hint is a further detail for the caller ("" for none).
	Hint string
	// Index is the event at fault (-1 when the error is not about one).
	Index int
	// Err is the cause, when there is one (a *broker.ProduceError for a
	// write the broker took in part).
	Err error
}

// Error is the message, after the event's number when it is about one.
func (e *Error) Error() string {
	if e.Index >= 0 {
		return fmt.Sprintf("event %d %s", e.Index, e.Message)
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// refuse builds an Error about no event in particular.
func refuse(k Kind, code wire.ErrorCode, resourceType, resourceID, format string, args ...any) *Error {
	return &Error{Kind: k, ErrorCode: code, Message: fmt.Sprintf(format, args...), ResourceType: resourceType, ResourceID: resourceID, Index: -1}
}

// notFound is Fabric's not-found answer for id of resourceType.
func notFound(code wire.ErrorCode, resourceType, id string) *Error {
	return refuse(NotFound, code, resourceType, id, "The requested %s %q could not be found", resourceType, id)
}
