package tlsca

import (
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// File names in the directory (see the package documentation).
const (
	CAFile        = "ca.pem"
	CAKeyFile     = "ca-key.pem"
	ServerFile    = "server.pem"
	ServerKeyFile = "server-key.pem"
)

// renewBefore is how long before its expiry a server certificate is made again.
const renewBefore = 30 * 24 * time.Hour

// Options says what material to make or load.
type Options struct {
	// Dir keeps the material; "" keeps it in memory.
	Dir string
	// Names are the DNS names and IP addresses the server certificate must
	// carry besides localhost, 127.0.0.1 and ::1.
	Names []string
	// CertFile and KeyFile, when both set, are a certificate (chain) and key
	// of the user's own, loaded instead of anything made here.
	CertFile, KeyFile string
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Material is what a TLS listener needs, and what its clients trust.
type Material struct {
	// Cert is the server certificate and its key.
	Cert tls.Certificate
	// CAPEM is the CA certificate in PEM, nil for a certificate of the
	// user's own (its CA is not known here).
	CAPEM []byte
	// Names are the subject alternative names of the server certificate.
	Names []string
	// Made reports whether the server certificate was made by this call
	// (false: reused from Dir, or the user's own).
	Made bool

	opts  Options // what made it (for WithNames)
	ca    *x509.Certificate
	caKey *ecdsa.PrivateKey
}

// DefaultNames are the names every made server certificate carries.
var DefaultNames = []string{"localhost", "127.0.0.1", "::1"}

// Load makes or loads the material o describes.
func Load(o Options) (*Material, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.CertFile != "" || o.KeyFile != "" {
		return loadOwn(o.CertFile, o.KeyFile)
	}
	ca, caKey, err := loadOrMakeCA(o.Dir, o.Now())
	if err != nil {
		return nil, err
	}
	return issue(o, ca, caKey)
}

// WithNames returns material whose server certificate also carries names
// (a host advertised at run time), signed by the same CA and kept in the
// same directory: m itself when it carries them already. The user's own
// certificate cannot change, and is returned as it is.
func (m *Material) WithNames(names ...string) (*Material, error) {
	if m.ca == nil {
		return m, nil
	}
	o := m.opts
	o.Names = append(append([]string(nil), o.Names...), names...)
	want, err := normalize(append(append([]string(nil), DefaultNames...), o.Names...))
	if err != nil {
		return nil, err
	}
	if equal(want, m.Names) {
		return m, nil
	}
	return issue(o, m.ca, m.caKey)
}

// issue reuses or makes the server certificate o asks for under ca.
func issue(o Options, ca *x509.Certificate, caKey *ecdsa.PrivateKey) (*Material, error) {
	names, err := normalize(append(append([]string(nil), DefaultNames...), o.Names...))
	if err != nil {
		return nil, err
	}
	m, ok := reuseServer(o.Dir, ca, names, o.Now())
	if !ok {
		if m, err = makeServer(ca, caKey, names, o.Now()); err != nil {
			return nil, err
		}
		if err := saveServer(o.Dir, m); err != nil {
			return nil, err
		}
	}
	m.CAPEM, m.opts, m.ca, m.caKey = encodeCert(ca.Raw), o, ca, caKey
	return m, nil
}

// loadOwn loads the user's certificate and key.
func loadOwn(certFile, keyFile string) (*Material, error) {
	if certFile == "" || keyFile == "" {
		return nil, errors.New("tls: give both a certificate file and a key file, or neither")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("load tls certificate %s and key %s: %w", certFile, keyFile, err)
	}
	leaf := cert.Leaf
	var names []string
	if leaf != nil {
		names = sans(leaf)
	}
	return &Material{Cert: cert, Names: names}, nil
}

// loadOrMakeCA returns the CA kept in dir, making (and keeping) one when
// there is none.
func loadOrMakeCA(dir string, now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	if dir != "" {
		ca, key, err := readPair(filepath.Join(dir, CAFile), filepath.Join(dir, CAKeyFile))
		if err == nil {
			return ca, key, nil
		}
		if !errors.Is(err, errMissing) {
			return nil, nil, fmt.Errorf("read tls ca: %w", err)
		}
	}
	ca, key, err := makeCA(now)
	if err != nil {
		return nil, nil, err
	}
	if dir != "" {
		if err := writePair(dir, CAFile, CAKeyFile, ca.Raw, key); err != nil {
			return nil, nil, fmt.Errorf("write tls ca: %w", err)
		}
	}
	return ca, key, nil
}

// reuseServer returns the server certificate kept in dir when it still fits.
func reuseServer(dir string, ca *x509.Certificate, names []string, now time.Time) (*Material, bool) {
	if dir == "" {
		return nil, false
	}
	leaf, key, err := readPair(filepath.Join(dir, ServerFile), filepath.Join(dir, ServerKeyFile))
	if err != nil || leaf.CheckSignatureFrom(ca) != nil || !equal(sans(leaf), names) ||
		now.Before(leaf.NotBefore) || now.After(leaf.NotAfter.Add(-renewBefore)) {
		return nil, false
	}
	return &Material{Cert: tls.Certificate{Certificate: [][]byte{leaf.Raw}, PrivateKey: key, Leaf: leaf}, Names: names}, true
}

// saveServer keeps a made server certificate in dir.
func saveServer(dir string, m *Material) error {
	if dir == "" {
		return nil
	}
	if err := writePair(dir, ServerFile, ServerKeyFile, m.Cert.Leaf.Raw, m.Cert.PrivateKey.(*ecdsa.PrivateKey)); err != nil {
		return fmt.Errorf("write tls server certificate: %w", err)
	}
	return nil
}
