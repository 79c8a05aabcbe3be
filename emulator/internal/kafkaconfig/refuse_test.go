package kafkaconfig

import (
	"strings"
	"testing"
)

// Every refusal names the key at fault.
func TestParseRefusals(t *testing.T) {
	pki := newPKI(t)
	sasl := func(extra Properties) Properties {
		return Merge(Properties{"security.protocol": "SASL_SSL", "sasl.jaas.config": plainJAAS}, extra)
	}
	ssl := func(extra Properties) Properties { return Merge(Properties{"security.protocol": "SSL"}, extra) }
	cases := []struct {
		name  string
		props Properties
		key   string
		says  string
	}{
		{"unknown protocol", Properties{"security.protocol": "TLS"}, "security.protocol", "is not PLAINTEXT"},
		{"GSSAPI with a PLAIN line", sasl(Properties{"sasl.mechanism": "GSSAPI"}), "sasl.jaas.config", "does not fit sasl.mechanism GSSAPI; want com.sun.security.auth.module.Krb5LoginModule"},
		{"OAUTHBEARER", sasl(Properties{"sasl.mechanism": "OAUTHBEARER"}), "sasl.mechanism", "OAUTHBEARER is not supported"},
		{"unknown mechanism", sasl(Properties{"sasl.mechanism": "SCRAM-SHA-1"}), "sasl.mechanism", "is not PLAIN"},
		{"no JAAS", Properties{"security.protocol": "SASL_PLAINTEXT"}, "sasl.jaas.config", "required"},
		{"Kerberos module", sasl(Properties{"sasl.jaas.config": `com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true;`}), "sasl.jaas.config", "does not fit sasl.mechanism PLAIN"},
		{"OAuth module", sasl(Properties{"sasl.jaas.config": `org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;`}), "sasl.jaas.config", "OAuthBearerLoginModule"},
		{"module for another mechanism", sasl(Properties{"sasl.mechanism": "SCRAM-SHA-256"}), "sasl.jaas.config", "does not fit"},
		{"no password", sasl(Properties{"sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="a";`}), "sasl.jaas.config", "password"},
		{"other JAAS option", sasl(Properties{"sasl.jaas.config": `org.apache.kafka.common.security.scram.ScramLoginModule required username="a" password="b" tokenauth="true";`, "sasl.mechanism": "SCRAM-SHA-256"}), "sasl.jaas.config", "tokenauth"},
		{"no semicolon", sasl(Properties{"sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="b"`}), "sasl.jaas.config", "want"},
		{"bad flag", sasl(Properties{"sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule always username="a" password="b";`}), "sasl.jaas.config", "control flag"},
		{"unterminated quote", sasl(Properties{"sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="a;`}), "sasl.jaas.config", "unterminated"},
		{"SASL key under SSL", ssl(Properties{"sasl.mechanism": "PLAIN"}), "sasl.mechanism", "security.protocol is SSL"},
		{"JAAS under PLAINTEXT", Properties{"sasl.jaas.config": plainJAAS}, "sasl.jaas.config", "security.protocol is PLAINTEXT"},
		{"SSL key under SASL_PLAINTEXT", Properties{"security.protocol": "SASL_PLAINTEXT", "sasl.jaas.config": plainJAAS, "ssl.truststore.location": "x"}, "ssl.truststore.location", "use SSL or SASL_SSL"},
		{"JKS trust store without password", ssl(Properties{"ssl.truststore.type": "JKS", "ssl.truststore.location": "x"}), "ssl.truststore.password", "required to open a JKS store"},
		{"PKCS12 key store without password", ssl(Properties{"ssl.keystore.type": "PKCS12", "ssl.keystore.location": "x"}), "ssl.keystore.password", "required to open a PKCS12 store"},
		{"trust store without type is JKS", ssl(Properties{"ssl.truststore.location": "x"}), "ssl.truststore.password", "JKS"},
		{"unknown store type", ssl(Properties{"ssl.keystore.type": "BKS", "ssl.keystore.location": "x"}), "ssl.keystore.type", "is not PEM, JKS or PKCS12"},
		{"inline JKS", ssl(Properties{"ssl.truststore.type": "JKS", "ssl.truststore.certificates": pki.caPEM}), "ssl.truststore.type", "inline certificates and keys are PEM"},
		{"inline without type", ssl(Properties{"ssl.truststore.certificates": pki.caPEM}), "ssl.truststore.type", "required: PEM"},
		{"PEM file as default JKS", ssl(Properties{"ssl.truststore.location": writeFile(t, "ca.pem", pki.caPEM), "ssl.truststore.password": "x"}), "ssl.truststore.type", "is unset, so JKS (Kafka's default), but ssl.truststore.location is a PEM file; set ssl.truststore.type=PEM"},
		{"password of a PEM store", ssl(Properties{"ssl.truststore.type": "PEM", "ssl.truststore.location": writeFile(t, "ca.pem", pki.caPEM), "ssl.truststore.password": "x"}), "ssl.truststore.password", "the store is PEM"},
		{"missing JKS file", ssl(Properties{"ssl.keystore.location": "/nonexistent/k.jks", "ssl.keystore.password": "x"}), "ssl.keystore.location", "read"},
		{"not a JKS file", ssl(Properties{"ssl.truststore.location": writeFile(t, "junk.jks", "junk"), "ssl.truststore.password": "x"}), "ssl.truststore.password", "open the JKS store"},
		{"not a PKCS12 file", ssl(Properties{"ssl.keystore.type": "PKCS12", "ssl.keystore.location": writeFile(t, "junk.p12", "junk"), "ssl.keystore.password": "x"}), "ssl.keystore.password", "open the PKCS12 store"},
		{"missing trust file", ssl(Properties{"ssl.truststore.type": "PEM", "ssl.truststore.location": "/nonexistent/ca.pem"}), "ssl.truststore.location", "read"},
		{"no certificate inline", ssl(Properties{"ssl.truststore.type": "PEM", "ssl.truststore.certificates": "junk"}), "ssl.truststore.certificates", "no PEM certificate"},
		{"both trust forms", ssl(Properties{"ssl.truststore.type": "PEM", "ssl.truststore.location": "x", "ssl.truststore.certificates": pki.caPEM}), "ssl.truststore.location", "give one"},
		{"chain without key", ssl(Properties{"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": pki.certPEM}), "ssl.keystore.key", "required"},
		{"key without chain", ssl(Properties{"ssl.keystore.type": "PEM", "ssl.keystore.key": pki.keyPEM}), "ssl.keystore.certificate.chain", "required"},
		{"both key store forms", ssl(Properties{"ssl.keystore.type": "PEM", "ssl.keystore.location": "x", "ssl.keystore.key": pki.keyPEM}), "ssl.keystore.location", "one form"},
		{"encrypted key", ssl(Properties{"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": pki.certPEM, "ssl.keystore.key": "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"}), "ssl.keystore.key", "encrypted"},
		{"key of another certificate", ssl(Properties{"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": pki.certPEM, "ssl.keystore.key": newPKI(t).keyPEM}), "ssl.keystore.key", "does not match"},
		{"key file without key", ssl(Properties{"ssl.keystore.type": "PEM", "ssl.keystore.location": writeFile(t, "c.pem", pki.certPEM)}), "ssl.keystore.location", "no PEM private key"},
		{"bad identification algorithm", ssl(Properties{"ssl.endpoint.identification.algorithm": "dns"}), "ssl.endpoint.identification.algorithm", "https or empty"},
		{"old TLS", ssl(Properties{"ssl.enabled.protocols": "TLSv1.1,TLSv1.2"}), "ssl.enabled.protocols", "TLSv1.1"},
		{"store password without store", ssl(Properties{"ssl.truststore.password": "x"}), "ssl.truststore.password", "without ssl.truststore.location"},
		{"key password without store", ssl(Properties{"ssl.key.password": "x"}), "ssl.key.password", "without ssl.keystore.location"},
		{"keystore password without store", ssl(Properties{"ssl.keystore.password": "x"}), "ssl.keystore.password", "without ssl.keystore.location"},
		{"key password of a PEM key", ssl(Properties{"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": pki.certPEM, "ssl.keystore.key": pki.keyPEM, "ssl.key.password": "x"}), "ssl.key.password", "encrypted PEM keys"},
		{"Kerberos key under PLAIN", sasl(Properties{"sasl.kerberos.service.name": "kafka"}), "sasl.kerberos.service.name", "sasl.mechanism is PLAIN; it is a GSSAPI (Kerberos) key"},
		{"OAuth key", sasl(Properties{"sasl.oauthbearer.token.endpoint.url": "https://x"}), "sasl.oauthbearer.token.endpoint.url", "OAUTHBEARER"},
		{"callback handler", sasl(Properties{"sasl.login.callback.handler.class": "x.Y"}), "sasl.login.callback.handler.class", "callback"},
		{"cipher suites", ssl(Properties{"ssl.cipher.suites": "x"}), "ssl.cipher.suites", "Go's defaults"},
		{"unknown key", Properties{"linger.ms": "5"}, "linger.ms", "not a setting the emulator reads"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.props)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), "kafka config "+tc.key+":") || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error %q does not name %s with %q", err, tc.key, tc.says)
			}
		})
	}
}
