package gateway

import (
	"bufio"
	"errors"
	"net"
	"time"
)

// A connection's first bytes tell its protocol. An AMQP 1.0 connection
// opens with the 8-byte protocol header "AMQP" id major minor revision
// (id 0 for AMQP, 2 for TLS, 3 for SASL); a Kafka request opens with its
// size as a 4-byte big-endian integer, which would be at least 0x41000000
// (1 GiB) were its first byte 'A', far above any frame the gateway takes.
// So the first byte decides, and 'A' must be followed by "MQP".

// protocol is what a connection's first bytes announce.
type protocol int

const (
	protoKafka   protocol = iota
	protoAMQP             // "AMQP": the Event Hubs door's
	protoUnknown          // 'A' but not "AMQP": neither
)

// amqpHeader is the start every AMQP 1.0 connection sends first.
const amqpHeader = "AMQP"

// sniff tells the protocol of a connection from its first bytes, at least
// one and at most len(amqpHeader) of them: short means more are needed
// (only when the first is 'A').
func sniff(first []byte) (p protocol, short bool) {
	if len(first) == 0 {
		return protoKafka, true
	}
	if first[0] != amqpHeader[0] {
		return protoKafka, false
	}
	n := min(len(first), len(amqpHeader))
	if string(first[:n]) != amqpHeader[:n] {
		return protoUnknown, false
	}
	if n < len(amqpHeader) {
		return protoAMQP, true
	}
	return protoAMQP, false
}

// AMQPHandler serves a connection whose first bytes are the AMQP header,
// from those bytes on; it owns the connection from then on.
type AMQPHandler func(net.Conn)

// WithAMQP has the gateway's listeners take AMQP 1.0 connections too (after
// the TLS handshake on a TLS listener) and hand them to h: one port then
// serves both the Kafka protocol and Event Hubs' AMQP. Without it an AMQP
// client is logged and closed.
func WithAMQP(h AMQPHandler) Option {
	return func(g *Gateway) { g.amqp = h }
}

var errNotKafka = errors.New("neither a Kafka request nor an AMQP header")

// route reads the connection's first bytes (within the SASL deadline) and
// hands an AMQP connection over; handed is true when it did, and the
// session must then neither close nor serve the connection.
func (s *session) route() (handed bool, err error) {
	first, err := s.cr.Peek(1)
	if err != nil {
		return false, s.readFailed(err)
	}
	p, short := sniff(first)
	for short {
		if first, err = s.cr.Peek(len(first) + 1); err != nil {
			if p == protoAMQP {
				s.log.Warn("kafka gateway: connection closed inside an AMQP header", "err", err)
			}
			return false, s.readFailed(err)
		}
		p, short = sniff(first)
	}
	switch p {
	case protoKafka:
		return false, nil
	case protoUnknown:
		s.log.Warn("kafka gateway: the first bytes are neither a Kafka request nor an AMQP header; closing", "bytes", first)
		return false, errNotKafka
	}
	if s.g.amqp == nil {
		s.log.Warn("kafka gateway: an AMQP client on the Kafka endpoint while the Event Hubs endpoint is off; closing (start the emulator with --amqp-endpoint)")
		return false, errNotKafka
	}
	s.g.forget(s)
	_ = s.client.SetDeadline(time.Time{}) // the door sets its own
	s.log.Debug("kafka gateway: an AMQP connection; handing it to the Event Hubs endpoint")
	s.g.amqp(&peekedConn{Conn: s.client, r: s.cr})
	return true, nil
}

// peekedConn is a connection whose first bytes sit in r's buffer.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

// Read reads the buffered bytes first, then the connection.
func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
