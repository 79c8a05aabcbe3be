// Package amqp is an AMQP 1.0 protocol codec for the server side of a
// connection: the type system (OASIS AMQP 1.0 part 1), frames and protocol
// headers (part 2), performatives, delivery states and SASL frames (parts 2,
// 3 and 5), and messages with their sections (part 3), including the Event
// Hubs batch format.
//
// Why a codec of our own: no Go library serves AMQP 1.0 from the server side.
// github.com/Azure/go-amqp is a client, and its encoding lives in an internal
// package that other modules cannot import. This package is a leaf with the
// standard library only; its tests use go-amqp as a real client against a
// loopback server built from this codec.
//
// Decoding is strict and bounded: every length and element count is checked
// against the bytes that remain before anything is allocated, nesting is
// limited to MaxDepth, and no input makes it panic. Every decoding failure
// wraps ErrMalformed, a frame header that breaks the frame rules wraps
// ErrFraming, and a frame larger than the allowed maximum wraps
// ErrFrameTooLarge and ErrFraming; Condition maps an error to the
// condition a server sends (amqp:decode-error,
// amqp:connection:framing-error). Encoding chooses the compact encodings
// (uint0, smalluint, list0, str8, …).
//
// Go representation of AMQP values:
//
//	null      nil            boolean  bool          ubyte   uint8
//	ushort    uint16         uint     uint32        ulong   uint64
//	byte      int8           short    int16         int     int32
//	long      int64          float    float32       double  float64
//	char      Char           timestamp time.Time    uuid    UUID
//	binary    []byte         string   string        symbol  Symbol
//	decimal32 Decimal32      decimal64 Decimal64    decimal128 Decimal128
//	list      []any          map      Map (keeps key order)
//	array     Array          described Described
package amqp
