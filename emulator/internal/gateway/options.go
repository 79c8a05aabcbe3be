package gateway

import (
	"crypto/tls"
	"log/slog"
	"time"
)

// Option configures a Gateway.
type Option func(*Gateway)

// WithListenAddr sets the address the gateway listens on (default
// "127.0.0.1:0", a free loopback port). Extra per-broker listeners, opened
// only for a multi-broker upstream, use the same host with a free port.
func WithListenAddr(addr string) Option {
	return func(g *Gateway) { g.listenAddr = addr }
}

// WithAdvertisedAddr sets the host:port that Metadata and FindCoordinator
// hand to clients (default: the listener's address). Set it when clients
// reach the gateway through another name, such as a container's mapped port.
func WithAdvertisedAddr(hostport string) Option {
	return func(g *Gateway) { g.advertised = hostport }
}

// WithLogger sets the logger (default slog.Default()). Connection events log
// at Debug, refusals at Warn.
func WithLogger(l *slog.Logger) Option {
	return func(g *Gateway) {
		if l != nil {
			g.log = l
		}
	}
}

// WithAuthTimeout sets how long a new connection has to finish SASL
// authentication (default 10 s). The deadline counts from the connection's
// opening, however many requests the client sends meanwhile; a connection
// still unauthenticated when it passes is closed. A zero or negative d keeps
// the default.
func WithAuthTimeout(d time.Duration) Option {
	return func(g *Gateway) {
		if d > 0 {
			g.authTimeout = d
		}
	}
}

// WithTLS makes every listener of the gateway serve TLS with c before the
// Kafka protocol: the endpoint is then SASL_SSL, as Event Hubs' Kafka
// surface is. Without it the endpoint is SASL_PLAINTEXT.
func WithTLS(c *tls.Config) Option {
	return func(g *Gateway) { g.tls = c }
}
