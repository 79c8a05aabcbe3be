package amqp

import (
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every error about bytes that do not decode:
// a server answers it with amqp:decode-error (or a framing error when the
// frame itself is broken).
var ErrMalformed = errors.New("malformed AMQP data")

// ErrFrameTooLarge is wrapped by ReadFrame's error for a frame whose
// declared size exceeds the allowed maximum.
var ErrFrameTooLarge = errors.New("frame too large")

// ErrNotAMQP is wrapped by ReadProtocolHeader's error when the peer's first
// bytes are not an AMQP protocol header (garbage, HTTP, a TLS ClientHello).
var ErrNotAMQP = errors.New("not an AMQP protocol header")

// malformed returns an error wrapping ErrMalformed with a formatted message.
func malformed(format string, args ...any) error {
	return &decodeError{msg: fmt.Sprintf(format, args...)}
}

// decodeError is a decoding failure; it wraps ErrMalformed.
type decodeError struct{ msg string }

// Error returns the message.
func (e *decodeError) Error() string { return e.msg }

// Unwrap makes errors.Is(err, ErrMalformed) hold.
func (e *decodeError) Unwrap() error { return ErrMalformed }

// wrapf prefixes err with a verb phrase, keeping it unwrappable.
func wrapf(err error, format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, err)...)
}
