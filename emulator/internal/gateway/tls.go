package gateway

import (
	"crypto/tls"
	"errors"
	"io"
	"os"
)

// start opens a connection's transport: the TLS handshake on a TLS
// listener, within the SASL deadline; on a plain one, a look at the first
// bytes for a client that starts TLS. A client on the wrong protocol is
// logged in one line naming the setting to change, and closed: that is
// what a Kafka broker does, and what librdkafka and the Java client
// report as a likely security.protocol mismatch.
func (s *session) start() error {
	if tc, ok := s.client.(*tls.Conn); ok {
		return s.tlsHandshake(tc)
	}
	if b, err := s.cr.Peek(3); err == nil && b[0] == 0x16 && b[1] == 0x03 {
		s.log.Warn("kafka gateway: a TLS client on the plain-text endpoint; closing (start the emulator with --tls for SASL_SSL, or set security.protocol=SASL_PLAINTEXT)")
		return errors.New("tls client on a plain-text endpoint")
	}
	return nil
}

// tlsHandshake runs the TLS handshake, logging a failure.
func (s *session) tlsHandshake(tc *tls.Conn) error {
	err := tc.HandshakeContext(s.g.ctx)
	if err == nil {
		return nil
	}
	var rh tls.RecordHeaderError
	switch {
	case errors.As(err, &rh):
		s.log.Warn("kafka gateway: a plain-text client on the TLS endpoint; closing (the emulator runs with --tls: set security.protocol=SASL_SSL and trust its CA, `fabric-emulator ca`)")
	case errors.Is(err, io.EOF) || errors.Is(err, os.ErrDeadlineExceeded):
		s.log.Debug("kafka gateway: connection closed before the TLS handshake ended", "err", err)
	default:
		s.log.Warn("kafka gateway: TLS handshake failed; closing (does the client trust the emulator's CA? `fabric-emulator ca` prints it)", "err", err)
	}
	return err
}
