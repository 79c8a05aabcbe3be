package emulator

import "errors"

// tlsSettings is what the TLS options set.
type tlsSettings struct {
	on                bool
	names             []string // extra subject alternative names
	certFile, keyFile string   // a certificate of the user's own
}

// WithTLS serves the API over HTTPS and the custom endpoint's Kafka surface
// as SASL_SSL (TLS, then SASL PLAIN with the connection string), as Fabric
// does, with a certificate signed by a CA the emulator makes once. The CA
// and the certificate are kept under the data dir's tls/ directory (ca.pem
// is the file clients trust), or in memory without a data dir; either way
// Server.CACertificate returns the CA, and GET /_emulator/ca.pem answers
// it to loopback callers. The certificate names localhost, 127.0.0.1, ::1,
// the custom endpoint's advertised host and extraNames (host names or IP
// addresses, no ports); it is made again when those change, under the same
// CA. Default: plain HTTP and SASL_PLAINTEXT.
func WithTLS(extraNames ...string) Option {
	return func(c *config) error {
		c.tls.on = true
		c.tls.names = append(c.tls.names, extraNames...)
		return nil
	}
}

// WithTLSCertificate serves TLS (as WithTLS) with a certificate chain and
// key of the user's own, PEM files, instead of the emulator's CA; clients
// then trust the user's CA, and Server.CACertificate returns nil.
func WithTLSCertificate(certFile, keyFile string) Option {
	return func(c *config) error {
		if certFile == "" || keyFile == "" {
			return errors.New("tls certificate: want both a certificate file and a key file")
		}
		c.tls.on = true
		c.tls.certFile, c.tls.keyFile = certFile, keyFile
		return nil
	}
}
