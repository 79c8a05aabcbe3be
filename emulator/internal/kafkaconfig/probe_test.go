package kafkaconfig

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

// secureCluster starts a kfake broker with TLS (client certificates
// required when mutual) and, when user is set, SASL SCRAM-SHA-512.
func secureCluster(t *testing.T, pki testPKI, mutual bool, user, pass string) []string {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(pki.ca)
	srv := &tls.Config{Certificates: []tls.Certificate{pki.server}, ClientCAs: pool, MinVersion: tls.VersionTLS12}
	if mutual {
		srv.ClientAuth = tls.RequireAndVerifyClientCert
	}
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.TLS(srv)}
	if user != "" {
		opts = append(opts, kfake.EnableSASL(), kfake.Superuser(ScramSHA512, user, pass))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

func scram512(pass string, pki testPKI) Properties {
	return Properties{"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
		"sasl.jaas.config":    `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="` + pass + `";`,
		"ssl.truststore.type": "PEM", "ssl.truststore.certificates": pki.caPEM}
}

func TestProbeSASLSSL(t *testing.T) {
	pki := newPKI(t)
	seeds := secureCluster(t, pki, false, "alice", "right")
	if err := mustParse(t, scram512("right", pki)).Probe(context.Background(), seeds); err != nil {
		t.Fatalf("right password: %v", err)
	}
	// kfake closes the connection on a failed login where Apache Kafka
	// answers SASL_AUTHENTICATION_FAILED first (the container tier checks
	// that message); either way the message points at the credentials.
	err := mustParse(t, scram512("wrong", pki)).Probe(context.Background(), seeds)
	if err == nil || !strings.Contains(err.Error(), "credentials in sasl.jaas.config") {
		t.Fatalf("wrong password: %v", err)
	}
	other := newPKI(t)
	err = mustParse(t, scram512("right", other)).Probe(context.Background(), seeds)
	if err == nil || !strings.Contains(err.Error(), "untrusted CA") || !strings.Contains(err.Error(), "ssl.truststore.location") {
		t.Fatalf("untrusted CA: %v", err)
	}
}

func TestProbeMutualTLS(t *testing.T) {
	pki := newPKI(t)
	seeds := secureCluster(t, pki, true, "", "")
	trust := Properties{"security.protocol": "SSL", "ssl.truststore.type": "PEM", "ssl.truststore.certificates": pki.caPEM}
	withCert := Merge(trust, Properties{"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": pki.certPEM, "ssl.keystore.key": pki.keyPEM})
	if err := mustParse(t, withCert).Probe(context.Background(), seeds); err != nil {
		t.Fatalf("with a client certificate: %v", err)
	}
	err := mustParse(t, trust).Probe(context.Background(), seeds)
	if err == nil || !strings.Contains(err.Error(), "client certificate") {
		t.Fatalf("without a client certificate: %v", err)
	}
	// SASL_PLAINTEXT against a TLS listener: the protocol is named.
	err = mustParse(t, Properties{"security.protocol": "SASL_PLAINTEXT", "sasl.jaas.config": plainJAAS}).Probe(context.Background(), seeds)
	if err == nil || !strings.Contains(err.Error(), "security.protocol SASL_PLAINTEXT") {
		t.Fatalf("plain text on a TLS listener: %v", err)
	}
}
