package kafkaconfig

import (
	"crypto/tls"
	"crypto/x509"
	"strings"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/kafkaconfig/storetest"
)

// Trust stores made by keytool, JKS (Kafka's default type) and PKCS12, give
// the CA as the PEM one does.
func TestJavaTrustStores(t *testing.T) {
	pki := newPKI(t)
	st := storetest.Make(t, pki.caPEM, pki.certPEM, pki.keyPEM)
	for name, p := range map[string]Properties{
		"JKS by default": {"ssl.truststore.location": st.TrustJKS, "ssl.truststore.password": st.Password},
		"JKS":            {"ssl.truststore.type": "JKS", "ssl.truststore.location": st.TrustJKS, "ssl.truststore.password": st.Password},
		"PKCS12":         {"ssl.truststore.type": "pkcs12", "ssl.truststore.location": st.TrustPKCS12, "ssl.truststore.password": st.Password},
	} {
		c := mustParse(t, Merge(Properties{"security.protocol": "SSL"}, p))
		pool := x509.NewCertPool()
		pool.AddCert(pki.ca)
		if c.TLS.RootCAs == nil || !c.TLS.RootCAs.Equal(pool) {
			t.Fatalf("%s: trust store is not the CA", name)
		}
		// Notebooks are handed the same certificates as PEM.
		if c.CAPEM != pki.caPEM {
			t.Fatalf("%s: CAPEM = %q", name, c.CAPEM)
		}
	}
}

// Key stores as openssl and keytool write them give the client certificate
// and key, handed on as a PEM chain and a PKCS#8 key.
func TestJavaKeyStores(t *testing.T) {
	pki := newPKI(t)
	st := storetest.Make(t, pki.caPEM, pki.certPEM, pki.keyPEM)
	for name, p := range map[string]Properties{
		"PKCS12 by openssl": {"ssl.keystore.type": "PKCS12", "ssl.keystore.location": st.KeyPKCS12OpenSSL, "ssl.keystore.password": st.Password},
		"PKCS12 by keytool": {"ssl.keystore.type": "PKCS12", "ssl.keystore.location": st.KeyPKCS12, "ssl.keystore.password": st.Password},
		"JKS, key password": {"ssl.keystore.location": st.KeyJKS, "ssl.keystore.password": st.Password, "ssl.key.password": st.KeyPassword},
	} {
		c := mustParse(t, Merge(Properties{"security.protocol": "SSL"}, p))
		if len(c.TLS.Certificates) != 1 {
			t.Fatalf("%s: %d client certificates", name, len(c.TLS.Certificates))
		}
		if !strings.HasPrefix(c.CertPEM, pki.certPEM) || !strings.Contains(c.CertPEM, pki.caPEM) {
			t.Fatalf("%s: chain is not the client certificate then the CA:\n%s", name, c.CertPEM)
		}
		if !strings.HasPrefix(c.KeyPEM, "-----BEGIN PRIVATE KEY-----") {
			t.Fatalf("%s: key is not PKCS#8: %.40s", name, c.KeyPEM)
		}
		if _, err := tls.X509KeyPair([]byte(c.CertPEM), []byte(c.KeyPEM)); err != nil {
			t.Fatalf("%s: handed-on pair: %v", name, err)
		}
	}
}

// A wrong password names the password key; a PKCS12 key password other
// than the store's is refused rather than tried.
func TestJavaStoreRefusals(t *testing.T) {
	pki := newPKI(t)
	st := storetest.Make(t, pki.caPEM, pki.certPEM, pki.keyPEM)
	ssl := func(extra Properties) Properties { return Merge(Properties{"security.protocol": "SSL"}, extra) }
	for _, tc := range []struct {
		name      string
		props     Properties
		key, says string
	}{
		{"JKS trust, wrong password", ssl(Properties{"ssl.truststore.location": st.TrustJKS, "ssl.truststore.password": "nope"}), "ssl.truststore.password", "wrong password"},
		{"PKCS12 trust, wrong password", ssl(Properties{"ssl.truststore.type": "PKCS12", "ssl.truststore.location": st.TrustPKCS12, "ssl.truststore.password": "nope"}), "ssl.truststore.password", "wrong password"},
		{"PKCS12 key, wrong password", ssl(Properties{"ssl.keystore.type": "PKCS12", "ssl.keystore.location": st.KeyPKCS12, "ssl.keystore.password": "nope"}), "ssl.keystore.password", "wrong password"},
		{"JKS key, wrong store password", ssl(Properties{"ssl.keystore.location": st.KeyJKS, "ssl.keystore.password": "nope"}), "ssl.keystore.password", "wrong password"},
		{"JKS key, no key password", ssl(Properties{"ssl.keystore.location": st.KeyJKS, "ssl.keystore.password": st.Password}), "ssl.key.password", `does not open the key "client"`},
		{"PKCS12 key, other key password", ssl(Properties{"ssl.keystore.type": "PKCS12", "ssl.keystore.location": st.KeyPKCS12, "ssl.keystore.password": st.Password, "ssl.key.password": "other"}), "ssl.key.password", "differs from ssl.keystore.password"},
		{"JKS trust store as key store", ssl(Properties{"ssl.keystore.location": st.TrustJKS, "ssl.keystore.password": st.Password}), "ssl.keystore.location", "holds 0 private keys"},
		{"PKCS12 key store as JKS", ssl(Properties{"ssl.keystore.location": st.KeyPKCS12, "ssl.keystore.password": st.Password}), "ssl.keystore.password", "is the file a JKS store?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.props)
			if err == nil || !strings.Contains(err.Error(), "kafka config "+tc.key+":") || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error %v does not name %s with %q", err, tc.key, tc.says)
			}
		})
	}
}
