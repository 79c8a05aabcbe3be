package kafkaconfig

import (
	"crypto/tls"
	"crypto/x509"
	"strings"
	"testing"
)

func TestTrustStoreFileAndInline(t *testing.T) {
	pki := newPKI(t)
	for name, p := range map[string]Properties{
		"location":     {"ssl.truststore.type": "PEM", "ssl.truststore.location": writeFile(t, "ca.pem", pki.caPEM)},
		"certificates": {"ssl.truststore.type": "pem", "ssl.truststore.certificates": pki.caPEM},
	} {
		c := mustParse(t, Merge(Properties{"security.protocol": "SSL"}, p))
		if c.TLS.RootCAs == nil || c.CAPEM != pki.caPEM {
			t.Fatalf("%s: no trust store", name)
		}
		pool := x509.NewCertPool()
		pool.AddCert(pki.ca)
		if !c.TLS.RootCAs.Equal(pool) {
			t.Fatalf("%s: trust store is not the CA", name)
		}
	}
}

func TestKeyStoreFileAndInline(t *testing.T) {
	pki := newPKI(t)
	for name, p := range map[string]Properties{
		"location":  {"ssl.keystore.type": "PEM", "ssl.keystore.location": writeFile(t, "client.pem", pki.keyPEM+pki.certPEM)},
		"inline":    {"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": pki.certPEM, "ssl.keystore.key": pki.keyPEM},
		"SEC 1 key": {"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": pki.certPEM, "ssl.keystore.key": pki.ecKeyPEM},
	} {
		c := mustParse(t, Merge(Properties{"security.protocol": "SASL_SSL", "sasl.jaas.config": plainJAAS}, p))
		if len(c.TLS.Certificates) != 1 || c.CertPEM != pki.certPEM {
			t.Fatalf("%s: no client certificate", name)
		}
		// Handed on as PKCS#8, the only form a Java PEM key store takes.
		if !strings.HasPrefix(c.KeyPEM, "-----BEGIN PRIVATE KEY-----") {
			t.Fatalf("%s: key is not PKCS#8: %.40s", name, c.KeyPEM)
		}
		if _, err := tls.X509KeyPair([]byte(c.CertPEM), []byte(c.KeyPEM)); err != nil {
			t.Fatalf("%s: handed-on pair: %v", name, err)
		}
	}
}

func TestHostnameCheck(t *testing.T) {
	c := mustParse(t, Properties{"security.protocol": "SSL", "ssl.endpoint.identification.algorithm": "https"})
	if c.NoHostnameCheck || c.TLS.InsecureSkipVerify {
		t.Fatal("https keeps the host name check")
	}
	c = mustParse(t, Properties{"security.protocol": "SSL", "ssl.endpoint.identification.algorithm": ""})
	if !c.NoHostnameCheck || c.TLS.VerifyConnection == nil {
		t.Fatal("empty drops the host name check only")
	}
	// The chain is still verified: an unknown CA fails.
	pki := newPKI(t)
	leaf, _ := x509.ParseCertificate(pki.server.Certificate[0])
	if err := c.TLS.VerifyConnection(tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf}}); err == nil {
		t.Fatal("a certificate of an untrusted CA passed")
	}
	c = mustParse(t, Properties{"security.protocol": "SSL", "ssl.endpoint.identification.algorithm": "", "ssl.truststore.type": "PEM", "ssl.truststore.certificates": pki.caPEM})
	if err := c.TLS.VerifyConnection(tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf}}); err != nil {
		t.Fatalf("a certificate of the trusted CA failed: %v", err)
	}
}

func TestTLSVersions(t *testing.T) {
	for p, want := range map[string]uint16{"TLSv1.3": tls.VersionTLS13, "TLSv1.2,TLSv1.3": tls.VersionTLS12, "TLSv1.2": tls.VersionTLS12} {
		c := mustParse(t, Properties{"security.protocol": "SSL", "ssl.enabled.protocols": p})
		if c.TLS.MinVersion != want {
			t.Errorf("ssl.enabled.protocols=%s: min %x", p, c.TLS.MinVersion)
		}
	}
	c := mustParse(t, Properties{"security.protocol": "SSL", "ssl.protocol": "TLSv1.3"})
	if c.TLS.MinVersion != tls.VersionTLS13 {
		t.Errorf("ssl.protocol=TLSv1.3: min %x", c.TLS.MinVersion)
	}
	if _, err := Parse(Properties{"security.protocol": "SSL", "ssl.protocol": "SSLv3"}); err == nil || !strings.Contains(err.Error(), "ssl.protocol") {
		t.Errorf("ssl.protocol=SSLv3: %v", err)
	}
}

func TestNotebookProperties(t *testing.T) {
	pki := newPKI(t)
	base := Properties{"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512", "sasl.jaas.config": scramJAAS,
		"ssl.truststore.type": "PEM", "ssl.truststore.certificates": pki.caPEM,
		"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": pki.certPEM, "ssl.keystore.key": pki.keyPEM}
	got := mustParse(t, base).NotebookProperties()
	want := map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
		"ssl.truststore.type": "PEM", "ssl.truststore.certificates": pki.caPEM}
	if len(got) != len(want) {
		t.Fatalf("not shared: got keys %v", keysOf(got))
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s = %q, want %q", k, got[k], v)
		}
	}
	got = mustParse(t, Merge(base, Properties{ShareKey: "true"})).NotebookProperties()
	if got["sasl.jaas.config"] != scramJAAS || got["ssl.keystore.type"] != "PEM" ||
		got["ssl.keystore.certificate.chain"] != pki.certPEM || got["ssl.keystore.key"] != pki.keyPEM {
		t.Fatalf("shared: got keys %v", keysOf(got))
	}
	got = mustParse(t, Properties{"security.protocol": "SSL", "ssl.endpoint.identification.algorithm": ""}).NotebookProperties()
	if v, ok := got["ssl.endpoint.identification.algorithm"]; !ok || v != "" {
		t.Fatalf("the disabled host name check is handed on: %v", got)
	}
}

func keysOf(m map[string]string) []string { return Properties(m).keys() }
