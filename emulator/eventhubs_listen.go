package emulator

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp/eventhubs"
)

// startAMQP starts the custom endpoint's Event Hubs surface (none without
// a broker, or with WithAMQPEndpoint("off")): plain AMQP, or AMQPS with
// the emulator's certificate under WithTLS.
func (s *Server) startAMQP() error {
	if !s.broker.Enabled() || s.cfg.amqp.addr == "off" {
		return nil
	}
	ln, err := net.Listen("tcp", s.cfg.amqp.addr)
	if err != nil {
		return fmt.Errorf("start amqp endpoint: %w", err)
	}
	if c := s.serverTLS("amqp"); c != nil {
		c.NextProtos = nil
		ln = tls.NewListener(ln, c)
	}
	srv := eventhubs.NewServer(ehHost{s: s}, eventhubs.Options{Logger: s.cfg.logger})
	s.eh, s.ehLn = srv, ln
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, eventhubs.ErrServerClosed) {
			s.cfg.logger.Error("amqp endpoint stopped", "err", err)
		}
	}()
	return nil
}

// AMQPEndpoint is the host:port of the Event Hubs listener ("" when the
// AMQP endpoint is off or there is no broker): the one advertised at run
// time (POST /_emulator/amqp-endpoint), else WithAMQPEndpointAdvertised's,
// else the listener's. Connection strings name it when it is advertised or
// on AMQP's default port (its host alone on that port); otherwise they name
// the Kafka endpoint, which takes AMQP connections too.
func (s *Server) AMQPEndpoint() string {
	if s.ehLn == nil {
		return ""
	}
	if adv := s.ehAdv.Load(); adv != nil {
		return *adv
	}
	if s.cfg.amqp.adv != "" {
		return s.cfg.amqp.adv
	}
	return s.ehLn.Addr().String()
}

// closeAMQP stops the Event Hubs surface and its connections (again: a
// no-op).
func (s *Server) closeAMQP() error {
	if s.eh == nil {
		return nil
	}
	err := s.eh.Close()
	s.ehLn.Close() // Serve may not have taken it yet
	return err
}

// AMQPAddr implements the API's view of the Event Hubs door: its address,
// and whether it speaks AMQPS.
func (a tlsAdvertiser) AMQPAddr() (string, bool) { return a.s.AMQPEndpoint(), a.s.TLS() }

// AMQPAdvertised reports whether the Event Hubs door's address was
// advertised (WithAMQPEndpointAdvertised or at run time), which connection
// strings then name.
func (a tlsAdvertiser) AMQPAdvertised() bool {
	return a.s.ehAdv.Load() != nil || a.s.cfg.amqp.adv != ""
}

// Revoke closes the Kafka sessions and the AMQP connections a rotated key
// opened.
func (a tlsAdvertiser) Revoke(keyID string) int {
	n := a.Gateway.Revoke(keyID)
	if a.s.eh != nil {
		n += a.s.eh.RevokeKey(keyID)
	}
	return n
}
