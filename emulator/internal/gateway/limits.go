package gateway

import (
	"errors"
	"os"
	"time"
)

// defaultAuthTimeout is how long a connection has to finish SASL unless
// WithAuthTimeout says otherwise.
const defaultAuthTimeout = 10 * time.Second

// preAuthMaxFrame bounds a request frame before SASL completes. The frames
// a client sends then are ApiVersions (tens of bytes plus its software
// name), SaslHandshake (the mechanism name) and SaslAuthenticate, whose PLAIN
// token carries the whole connection string: under 1 KiB for Fabric's (a
// host, a key name, a 44-character key and an entity path of at most a few
// hundred characters each). 64 KiB is over 60 times that, and eight
// connections that declare it hold half a MiB. Apache Kafka's equivalent,
// sasl.server.max.receive.size, is 512 KiB so as to fit custom mechanisms;
// its documentation notes that PLAIN can use a much smaller limit.
const preAuthMaxFrame = 64 << 10

// frameLimit is the largest request frame the session reads now: small
// until SASL completes, Kafka-sized after.
func (s *session) frameLimit() int32 {
	if s.authed {
		return maxFrame
	}
	return preAuthMaxFrame
}

// readFailed logs why reading a request failed before SASL completed, when
// it is the client's doing, and returns err.
func (s *session) readFailed(err error) error {
	switch {
	case s.authed:
	case errors.Is(err, os.ErrDeadlineExceeded):
		s.log.Warn("kafka gateway: no SASL authentication within the deadline; closing", "deadline", s.g.authTimeout)
	case errors.Is(err, errFrameSize):
		s.log.Warn("kafka gateway: frame over the limit before SASL authentication; closing", "err", err)
	}
	return err
}
