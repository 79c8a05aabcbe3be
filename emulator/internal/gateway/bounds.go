package gateway

import (
	"errors"
	"net"
	"os"
	"time"
)

// DefaultMaxConnections bounds the connections the gateway serves at once
// unless WithMaxConnections says otherwise: each holds two 64 KiB buffers
// and an upstream connection.
const DefaultMaxConnections = 1000

// DefaultIdleTimeout is how long an authenticated connection may send no
// request before the gateway closes it: Event Hubs' Kafka surface closes
// inbound connections idle for more than 240,000 ms (Microsoft's
// "Recommended configurations for Apache Kafka clients", which advises
// connections.max.idle.ms under it).
const DefaultIdleTimeout = 240 * time.Second

// WithMaxConnections caps the client connections served at once; one over
// the cap is closed as soon as it is accepted, and the client sees its
// connection closed before any answer (Kafka clients retry another time).
// A zero or negative n keeps the default.
func WithMaxConnections(n int) Option {
	return func(g *Gateway) {
		if n > 0 {
			g.maxConns = n
		}
	}
}

// WithIdleTimeout sets how long an authenticated connection may send no
// request before it is closed (default DefaultIdleTimeout). A zero or
// negative d keeps the default.
func WithIdleTimeout(d time.Duration) Option {
	return func(g *Gateway) {
		if d > 0 {
			g.idleTimeout = d
		}
	}
}

// full reports whether the gateway serves its cap of connections; the
// caller holds g.mu.
func (g *Gateway) fullLocked() bool { return len(g.sessions) >= g.maxConns }

// refuseFull closes c, accepted over the cap.
func (g *Gateway) refuseFull(c net.Conn) {
	g.log.Warn("kafka gateway: connection limit reached; closing the new connection", "limit", g.maxConns, "client", c.RemoteAddr().String())
	c.Close()
}

// armIdle sets the read deadline of an authenticated connection's next
// request.
func (s *session) armIdle() {
	if s.authed {
		s.client.SetReadDeadline(time.Now().Add(s.g.idleTimeout))
	}
}

// idleEnded reports (and logs) a read that failed because an
// authenticated connection stayed idle past the timeout.
func (s *session) idleEnded(err error) bool {
	if !s.authed || !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	s.log.Info("kafka gateway: connection idle past the timeout; closing", "idleTimeout", s.g.idleTimeout)
	return true
}
