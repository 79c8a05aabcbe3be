package emulator

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"path/filepath"

	"github.com/fabrictest/fabrictest/emulator/internal/gateway"
	"github.com/fabrictest/fabrictest/emulator/internal/tlsca"
)

// TLSDir is the directory under the data dir that holds the TLS material:
// ca.pem (the CA clients trust), ca-key.pem, server.pem and server-key.pem.
const TLSDir = "tls"

// loadTLS makes or loads the TLS material WithTLS asks for (nothing
// without it).
func (s *Server) loadTLS() error {
	if !s.cfg.tls.on {
		return nil
	}
	dir := ""
	if s.cfg.dataDir != "" {
		dir = filepath.Join(s.cfg.dataDir, TLSDir)
	}
	m, err := tlsca.Load(tlsca.Options{Dir: dir, Names: s.tlsNames(),
		CertFile: s.cfg.tls.certFile, KeyFile: s.cfg.tls.keyFile})
	if err != nil {
		return fmt.Errorf("tls: %w", err)
	}
	if m.Made {
		s.cfg.logger.Info("tls: made a server certificate", "names", m.Names, "dir", dir)
	}
	s.tlsMaterial = m
	s.tlsCurrent.Store(m)
	return nil
}

// nameTLS makes the server certificate carry host too, for an endpoint
// advertised at run time under a name the certificate lacks (the CA stays;
// clients connecting from then on get the new certificate).
func (s *Server) nameTLS(host string) error {
	m := s.tlsCurrent.Load()
	if m == nil || host == "" {
		return nil
	}
	s.tlsMu.Lock()
	defer s.tlsMu.Unlock()
	next, err := s.tlsCurrent.Load().WithNames(host)
	if err != nil {
		return fmt.Errorf("tls: %w", err)
	}
	if next.Made {
		s.cfg.logger.Info("tls: made a server certificate for an advertised host", "names", next.Names)
	}
	s.tlsCurrent.Store(next)
	return nil
}

// tlsAdvertiser is the gateway as the API sees it: advertising a host adds
// it to the server certificate first.
type tlsAdvertiser struct {
	*gateway.Gateway
	s *Server
}

// Advertise implements api.Gateway.
func (a tlsAdvertiser) Advertise(hostport string) error {
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		if err := a.s.nameTLS(host); err != nil {
			return err
		}
	}
	return a.Gateway.Advertise(hostport)
}

// tlsNames are the names the server certificate carries besides the
// defaults: the custom endpoint's advertised and listen hosts, Kafka's and
// AMQP's (unless wildcard), and the WithTLS names.
func (s *Server) tlsNames() []string {
	var names []string
	for _, hp := range []string{s.cfg.endpointAdv, s.cfg.endpointAddr, s.cfg.amqp.adv, s.cfg.amqp.addr} {
		if host, _, err := net.SplitHostPort(hp); err == nil && host != "" {
			if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
				names = append(names, host)
			}
		}
	}
	return append(names, s.cfg.tls.names...)
}

// serverTLS is the server-side configuration for the given ALPN protocols
// (nil when TLS is off).
func (s *Server) serverTLS(protos ...string) *tls.Config {
	if s.tlsMaterial == nil {
		return nil
	}
	get := func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &s.tlsCurrent.Load().Cert, nil }
	return &tls.Config{GetCertificate: get, MinVersion: tls.VersionTLS12, NextProtos: protos}
}

// TLS reports whether the server serves HTTPS and SASL_SSL (WithTLS).
func (s *Server) TLS() bool { return s.tlsMaterial != nil }

// Scheme is "https" with TLS on, "http" otherwise.
func (s *Server) Scheme() string {
	if s.TLS() {
		return "https"
	}
	return "http"
}

// CACertificate returns the PEM of the CA clients must trust: the one the
// emulator made (WithTLS), nil when TLS is off or the certificate is the
// user's own (WithTLSCertificate).
func (s *Server) CACertificate() []byte {
	if s.tlsMaterial == nil || s.tlsMaterial.CAPEM == nil {
		return nil
	}
	return append([]byte(nil), s.tlsMaterial.CAPEM...)
}

// CertPool returns a pool holding CACertificate, for a Go client's
// tls.Config.RootCAs (nil when CACertificate is).
func (s *Server) CertPool() *x509.CertPool {
	pem := s.CACertificate()
	if pem == nil {
		return nil
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return pool
}
