package eventhubs

import (
	"context"
	"errors"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// Token types a client puts on $cbs, and the one the door uses for SASL
// PLAIN credentials.
const (
	TokenSAS       = "servicebus.windows.net:sastoken"
	TokenJWT       = "jwt"
	TokenSASLPlain = "sasl-plain"
)

// Claims a grant may carry.
const (
	ClaimSend   = "Send"
	ClaimListen = "Listen"
)

// Credential is what a client presented: a token of a type for an
// audience (the resource URI it asks access to). For SASL PLAIN, KeyName is
// the user name, Token the password and Audience empty.
type Credential struct {
	Type     string
	Token    string
	Audience string
	KeyName  string
}

// Grant is what the host allows a credential: the eventstream (event hub)
// it covers ("" covers every one), its claims and when it ends.
type Grant struct {
	Entity  string
	Send    bool
	Listen  bool
	Expires time.Time // zero: never
	KeyID   string    // the key or principal the grant came from
}

// Event is one event a client sent.
type Event struct {
	// Body is the message's data sections joined; nil for a message whose
	// body is an amqp-value or amqp-sequence section (Message keeps it).
	Body                  []byte
	Properties            *amqp.Properties
	ApplicationProperties amqp.Map
	PartitionKey          string
	// Message is the decoded AMQP message (for a batch, the inner one).
	Message *amqp.Message
}

// StoredEvent is an event the host holds in a partition.
type StoredEvent struct {
	Event
	SequenceNumber int64
	Offset         int64
	EnqueuedTime   time.Time
}

// HubInfo describes an event hub: its partitions are "0" … PartitionCount-1.
type HubInfo struct {
	Name           string
	CreatedAt      time.Time
	PartitionCount int
	ConsumerGroups []string // matched case-insensitively; "$Default" is implied
}

// PartitionInfo describes one partition.
type PartitionInfo struct {
	BeginSequenceNumber int64
	LastSequenceNumber  int64
	LastOffset          int64
	LastEnqueuedTime    time.Time
	Empty               bool
}

// PositionKind says what a Position counts.
type PositionKind int

// Kinds of start positions.
const (
	FromEarliest PositionKind = iota // the first retained event
	FromLatest                       // only events enqueued after the receiver opens
	FromSequence                     // Value is a sequence number
	FromOffset                       // Value is an offset
	FromTime                         // Time is an enqueued time
)

// Position is where a receiver starts: events after Value (or Time), or at
// it when Inclusive.
type Position struct {
	Kind      PositionKind
	Value     int64
	Time      time.Time
	Inclusive bool
}

// Host is the emulator side of the door. Its methods may be called from
// many connections at once.
type Host interface {
	// Authorize checks a credential and returns its grant, or an error
	// wrapping ErrUnauthorized (or ErrNotFound for an unknown entity).
	Authorize(ctx context.Context, c Credential) (Grant, error)
	// Hub describes an event hub, or returns an error wrapping ErrNotFound.
	Hub(ctx context.Context, name string) (HubInfo, error)
	// PartitionInfo describes a partition of a hub.
	PartitionInfo(ctx context.Context, hub string, partition int) (PartitionInfo, error)
	// Send appends events to a hub, to partition (or, when partition is
	// -1, where their partition keys place them). A nil error means the
	// events are durable. The events and their bytes are the host's to
	// keep: the door does not reuse them.
	Send(ctx context.Context, g Grant, hub string, partition int, events []Event) error
	// Read returns up to max events of a partition from a position
	// (never FromLatest: the door resolves it with PartitionInfo when the
	// receiver attaches, and continues after the last event returned with
	// FromSequence). It may return none at once; the door then asks again
	// after its poll interval.
	Read(ctx context.Context, hub, group string, partition int, from Position, max int) ([]StoredEvent, error)
}

// Errors a host wraps so the door answers with Event Hubs' conditions.
var (
	ErrUnauthorized = errors.New("unauthorized")
	ErrNotFound     = errors.New("not found")
	ErrServerBusy   = errors.New("server busy")
	ErrTooLarge     = errors.New("message too large")
	// ErrDropConnection makes the door close the connection's socket at
	// once, with no AMQP close and no answer to the send or receive (a
	// fault rule's dropped connection).
	ErrDropConnection = errors.New("connection dropped")
)

// Event Hubs' own error conditions.
const (
	CondServerBusy amqp.Symbol = "com.microsoft:server-busy"
	CondArgument   amqp.Symbol = "com.microsoft:argument-error"
)

// hostError maps a host error to the AMQP error the door sends.
func hostError(err error) *amqp.Error {
	var e *amqp.Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, ErrUnauthorized):
		return &amqp.Error{Condition: amqp.CondUnauthorizedAccess, Description: err.Error()}
	case errors.Is(err, ErrNotFound):
		return &amqp.Error{Condition: amqp.CondNotFound, Description: err.Error()}
	case errors.Is(err, ErrServerBusy):
		return &amqp.Error{Condition: CondServerBusy, Description: err.Error()}
	case errors.Is(err, ErrTooLarge):
		return &amqp.Error{Condition: amqp.CondMessageSizeExceeded, Description: err.Error()}
	}
	return &amqp.Error{Condition: amqp.CondInternalError, Description: err.Error()}
}
