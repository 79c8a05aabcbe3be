package fabrictest

import (
	"crypto/tls"
	"crypto/x509"

	"github.com/fabrictest/fabrictest/emulator"
)

// WithTLS starts the emulator with TLS (emulator.WithTLS), as Fabric serves
// it: the API over HTTPS (Env.URL is https://…, and Env's own client and
// Client trust the emulator's CA) and the custom endpoint as SASL_SSL
// (Connection.KafkaOpts dials TLS). extraNames are host names or IP
// addresses the certificate carries besides localhost, 127.0.0.1 and ::1.
// Env.CACertificate hands the CA to the code under test: write it to a
// file for ssl.ca.location, REQUESTS_CA_BUNDLE or SSL_CERT_FILE.
func WithTLS(extraNames ...string) Option {
	return func(c *config) error {
		c.emulatorOpts = append([]emulator.Option{emulator.WithTLS(extraNames...)}, c.emulatorOpts...)
		return nil
	}
}

// CACertificate returns the PEM of the CA behind the emulator's TLS
// (WithTLS), nil when TLS is off.
func (e *Env) CACertificate() []byte { return e.c.srv.CACertificate() }

// CertPool returns a pool holding CACertificate (nil when TLS is off).
func (e *Env) CertPool() *x509.CertPool { return e.c.srv.CertPool() }

// TLSConfig returns a client configuration that trusts the emulator's CA
// (nil when TLS is off), for a Go client of the API or the custom endpoint.
func (e *Env) TLSConfig() *tls.Config { return e.c.tlsConfig() }

// tlsConfig is the client configuration of the core's server.
func (c *core) tlsConfig() *tls.Config {
	if !c.srv.TLS() {
		return nil
	}
	return &tls.Config{RootCAs: c.srv.CertPool(), MinVersion: tls.VersionTLS12}
}
