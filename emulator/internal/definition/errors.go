package definition

import (
	"errors"
	"fmt"

	"github.com/fabrictest/fabrictest/emulator/pipeline"
)

// Kind says which of Fabric's error codes a Refusal is answered with.
type Kind int

const (
	// BadInput is a field with a wrong value (Fabric's InvalidInput with an
	// InvalidParameter detail naming Field).
	BadInput Kind = iota
	// NotSupported is a node the emulator cannot run
	// (EventstreamNodeNotSupported, its detail naming Field).
	NotSupported
	// Corrupted is a part that is not a JSON object (CorruptedPayload); the
	// message ends with why JSON did not decode (JSON).
	Corrupted
	// FormatNotSupported is a destination, operator or DerivedStream that
	// cannot take the format its events arrive in
	// (EventstreamDataFormatNotSupported, its detail naming Field).
	FormatNotSupported
	// SchemaModeNotSupported is a node or change schema mode does not take
	// (EventstreamSchemaModeNotSupported, its detail naming Field).
	SchemaModeNotSupported
)

// Refusal is why a definition is refused, in the user's terms.
type Refusal struct {
	Kind    Kind
	Field   string // the field at fault, e.g. "eventstream.json operators[0].type"
	Message string
	JSON    error // Corrupted only: the decoding error, described by the caller
}

// Error renders r without the caller's envelope.
func (r *Refusal) Error() string {
	if r.Kind == BadInput {
		return r.Field + ": " + r.Message
	}
	if r.JSON != nil {
		return r.Message + r.JSON.Error()
	}
	return r.Message
}

// refuse answers node n of a type the emulator cannot run.
func refuse(n *Node, reason string) error {
	return &Refusal{Kind: NotSupported, Field: n.Path + ".type",
		Message: fmt.Sprintf("%s %q (%s) is of type %s, which this emulator cannot run: %s", n.Kind, n.Name, n.Path, n.Type, reason)}
}

// BadNode answers a wrong field of node n (field is relative to the node,
// "" for the node itself).
func BadNode(n *Node, field, format string, args ...any) error {
	at := "eventstream.json " + n.Path
	if field != "" {
		at += "." + field
	}
	return &Refusal{Kind: BadInput, Field: at, Message: fmt.Sprintf("%s %q: %s", n.Kind, n.Name, fmt.Sprintf(format, args...))}
}

// badField answers a wrong field outside any node.
func badField(field, format string, args ...any) error {
	return &Refusal{Kind: BadInput, Field: field, Message: fmt.Sprintf(format, args...)}
}

// opError turns the pipeline's verdict on node n's operators into a refusal.
func opError(n *Node, err error) error {
	var nse *pipeline.NotSupportedError
	var ve *pipeline.ValidationError
	switch {
	case errors.As(err, &nse):
		return &Refusal{Kind: NotSupported, Field: nse.Field, Message: fmt.Sprintf("%s %q (%s): %v", n.Kind, n.Name, n.Path, err)}
	case errors.As(err, &ve):
		return badField("eventstream.json "+n.Path, "%s %q: %s: %s", n.Kind, n.Name, ve.Field, ve.Message)
	}
	return badField("eventstream.json "+n.Path, "%s %q: %v", n.Kind, n.Name, err)
}
