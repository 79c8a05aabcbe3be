package kafkaconfig

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
)

// sslKeys are the keys that only mean something under SSL and SASL_SSL.
var sslKeys = []string{
	"ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.certificates",
	"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.certificate.chain", "ssl.keystore.key",
	"ssl.truststore.password", "ssl.keystore.password", "ssl.key.password",
	"ssl.endpoint.identification.algorithm", "ssl.enabled.protocols", "ssl.protocol",
}

// parseTLS builds the TLS configuration under SSL and SASL_SSL and refuses
// ssl.* keys under the other protocols.
func parseTLS(c *Config, p Properties) error {
	if !strings.HasSuffix(c.SecurityProtocol, "SSL") {
		for _, k := range sslKeys {
			if _, ok := p[k]; ok {
				return keyErr(k, "is set but security.protocol is %s; use SSL or SASL_SSL", c.SecurityProtocol)
			}
		}
		return nil
	}
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	if err := minVersion(t, p); err != nil {
		return err
	}
	if err := trustStore(c, t, p); err != nil {
		return err
	}
	if err := keyStore(c, t, p); err != nil {
		return err
	}
	switch v := strings.ToLower(strings.TrimSpace(p["ssl.endpoint.identification.algorithm"])); {
	case v == "https":
	case v == "" && hasKey(p, "ssl.endpoint.identification.algorithm"):
		c.NoHostnameCheck = true
		verifyChainOnly(t)
	case v != "":
		return keyErr("ssl.endpoint.identification.algorithm", "%q is not https or empty", v)
	}
	c.TLS = t
	return nil
}

func hasKey(p Properties, k string) bool { _, ok := p[k]; return ok }

// minVersion reads ssl.enabled.protocols (or ssl.protocol): the lowest
// version listed is the lowest allowed.
func minVersion(t *tls.Config, p Properties) error {
	for _, key := range []string{"ssl.protocol", "ssl.enabled.protocols"} {
		v, ok := p[key]
		if !ok {
			continue
		}
		lowest := uint16(0)
		for _, s := range strings.Split(v, ",") {
			var ver uint16
			switch strings.TrimSpace(s) {
			case "TLSv1.2", "TLS":
				ver = tls.VersionTLS12
			case "TLSv1.3":
				ver = tls.VersionTLS13
			default:
				return keyErr(key, "%q is not TLSv1.2 or TLSv1.3", strings.TrimSpace(s))
			}
			if lowest == 0 || ver < lowest {
				lowest = ver
			}
		}
		if key == "ssl.enabled.protocols" || !hasKey(p, "ssl.enabled.protocols") {
			t.MinVersion = lowest
		}
	}
	return nil
}

// trustStore reads the trust store: the CA certificates, from a PEM, JKS or
// PKCS12 file or inline PEM; none means the system's roots.
func trustStore(c *Config, t *tls.Config, p Properties) error {
	loc, hasLoc := p["ssl.truststore.location"]
	inline, hasInline := p["ssl.truststore.certificates"]
	switch {
	case hasLoc && hasInline:
		return keyErr("ssl.truststore.location", "set with ssl.truststore.certificates; give one")
	case !hasLoc && !hasInline:
		return strayPassword(p, "ssl.truststore.password", "ssl.truststore.location")
	}
	kind, err := storeKind(p, "ssl.truststore.type", hasInline)
	if err != nil {
		return err
	}
	pw, err := passwordFor(p, kind, "ssl.truststore.password")
	if err != nil {
		return err
	}
	key, text := "ssl.truststore.certificates", inline
	if hasLoc {
		key = "ssl.truststore.location"
		data, err := readStore(p, key, "ssl.truststore.type", kind, loc)
		if err != nil {
			return err
		}
		if text = string(data); kind != storePEM {
			if text, err = trustedCerts(kind, data, pw, "ssl.truststore.password"); err != nil {
				return keyErrOnce(key, err)
			}
		}
	}
	pool := x509.NewCertPool()
	certs, err := pemCertificates(text)
	if err != nil {
		return keyErr(key, "%v", err)
	}
	for _, cert := range certs {
		pool.AddCert(cert)
	}
	t.RootCAs, c.CAPEM = pool, text
	return nil
}

// pemCertificates parses every CERTIFICATE block of text; there must be one.
func pemCertificates(text string) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	rest := []byte(text)
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse certificate: %w", err)
		}
		out = append(out, cert)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no PEM certificate found")
	}
	return out, nil
}

// keyStore reads the client certificate chain and key: a PEM file with both,
// a JKS or PKCS12 store (ssl.keystore.location), or the two inline as PEM.
func keyStore(c *Config, t *tls.Config, p Properties) error {
	loc, hasLoc := p["ssl.keystore.location"]
	chain, hasChain := p["ssl.keystore.certificate.chain"]
	key, hasKey := p["ssl.keystore.key"]
	switch {
	case hasLoc && (hasChain || hasKey):
		return keyErr("ssl.keystore.location", "set with ssl.keystore.certificate.chain or ssl.keystore.key; give one form")
	case hasChain != hasKey && !hasChain:
		return keyErr("ssl.keystore.certificate.chain", "required with ssl.keystore.key")
	case hasChain != hasKey:
		return keyErr("ssl.keystore.key", "required with ssl.keystore.certificate.chain")
	case !hasLoc && !hasChain:
		if err := strayPassword(p, "ssl.keystore.password", "ssl.keystore.location"); err != nil {
			return err
		}
		return strayPassword(p, "ssl.key.password", "ssl.keystore.location")
	}
	kind, err := storeKind(p, "ssl.keystore.type", !hasLoc)
	if err != nil {
		return err
	}
	pw, err := passwordFor(p, kind, "ssl.keystore.password")
	if err != nil {
		return err
	}
	keyPW, hasKeyPW := p["ssl.key.password"]
	switch {
	case kind == storePEM && hasKeyPW:
		return keyErr("ssl.key.password", "encrypted PEM keys are not supported; give an unencrypted PKCS#8 key")
	case !hasKeyPW:
		keyPW = pw
	}
	if hasLoc {
		data, err := readStore(p, "ssl.keystore.location", "ssl.keystore.type", kind, loc)
		if err != nil {
			return err
		}
		chain, key = string(data), string(data)
		if kind != storePEM {
			if chain, key, err = keyPair(kind, data, pw, keyPW); err != nil {
				return keyErrOnce("ssl.keystore.location", err)
			}
		}
	}
	where := func(k string) string {
		if hasLoc {
			return "ssl.keystore.location"
		}
		return k
	}
	if _, err := pemCertificates(chain); err != nil {
		return keyErr(where("ssl.keystore.certificate.chain"), "%v", err)
	}
	if err := plainKey(key); err != nil {
		return keyErr(where("ssl.keystore.key"), "%v", err)
	}
	pair, err := tls.X509KeyPair([]byte(chain), []byte(key))
	if err != nil {
		return keyErr(where("ssl.keystore.key"), "%v", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(pair.PrivateKey)
	if err != nil {
		return keyErr(where("ssl.keystore.key"), "%v", err)
	}
	t.Certificates = []tls.Certificate{pair}
	// PKCS#8, the one form a Java client's PEM key store takes.
	c.CertPEM, c.KeyPEM = pemOnly(chain, "CERTIFICATE"), string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	return nil
}

// plainKey refuses a PEM key that is missing or encrypted.
func plainKey(text string) error {
	rest := []byte(text)
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return fmt.Errorf("no PEM private key found")
		}
		switch b.Type {
		case "ENCRYPTED PRIVATE KEY":
			return fmt.Errorf("encrypted private keys are not supported; give an unencrypted PKCS#8 key")
		case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY":
			if _, enc := b.Headers["DEK-Info"]; enc {
				return fmt.Errorf("encrypted private keys are not supported; give an unencrypted PKCS#8 key")
			}
			return nil
		}
	}
}

// pemOnly re-encodes the blocks of text whose type is one of types.
func pemOnly(text string, types ...string) string {
	var b strings.Builder
	rest := []byte(text)
	for {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			return b.String()
		}
		for _, t := range types {
			if blk.Type == t {
				b.Write(pem.EncodeToMemory(blk))
			}
		}
	}
}

// verifyChainOnly checks the server's chain against t's roots without its
// host name (ssl.endpoint.identification.algorithm empty).
func verifyChainOnly(t *tls.Config) {
	t.InsecureSkipVerify = true // the chain is verified below; only the host name is not
	t.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return fmt.Errorf("broker sent no certificate")
		}
		opts := x509.VerifyOptions{Roots: t.RootCAs, Intermediates: x509.NewCertPool()}
		for _, ic := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(ic)
		}
		_, err := cs.PeerCertificates[0].Verify(opts)
		return err
	}
}
