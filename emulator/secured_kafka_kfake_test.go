package emulator_test

import (
	"crypto/tls"
	"crypto/x509"
	"maps"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/internal/kafkaconfig/storetest"
	"github.com/fabrictest/fabrictest/fixtures/kafka"
)

// The emulator on a secured cluster, in process: kfake with TLS (and client
// certificates required) and SASL SCRAM-SHA-512. The same checks run
// against Apache Kafka in the container tier (secured_kafka_test.go); kfake
// closes the connection on a failed login where Apache Kafka answers
// SASL_AUTHENTICATION_FAILED, so the wrong password is checked there.

// securedKfake starts kfake serving TLS with a certificate of pki for
// 127.0.0.1, requiring a client certificate when mutual, with SCRAM-SHA-512
// user "emulator" / "emulator-secret" when sasl.
func securedKfake(t *testing.T, pki *kafka.PKI, mutual, sasl bool, extra ...kfake.Opt) string {
	t.Helper()
	cert, key, err := pki.Issue("kfake", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair([]byte(cert), []byte(key))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(pki.CAPEM))
	srv := &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool, MinVersion: tls.VersionTLS12}
	if mutual {
		srv.ClientAuth = tls.RequireAndVerifyClientCert
	}
	opts := []kfake.Opt{kfake.TLS(srv), kfake.DefaultNumPartitions(4)}
	if sasl {
		opts = append(opts, kfake.EnableSASL(), kfake.Superuser(kafka.SCRAM, "emulator", "emulator-secret"))
	}
	_, addr := kafkaCluster(t, append(opts, extra...)...)
	return addr
}

func TestSecuredKfakeSASLSSL(t *testing.T) {
	pki, err := kafka.NewPKI("kfake CA")
	if err != nil {
		t.Fatal(err)
	}
	addr := securedKfake(t, pki, false, true)
	props := kafka.SASLSSL(pki, nil).ClientProperties("emulator", "emulator-secret")
	e := startEnv(t, emulator.WithKafka(addr), emulator.WithKafkaConfigFile(writeClientProperties(t, props)))
	deliverSecured(t, e)
	r := resolved(t, e)
	kp, _ := r["kafkaProperties"].(map[string]any)
	if r["securityProtocol"] != "SASL_SSL" || r["saslMechanism"] != "SCRAM-SHA-512" || r["credentialsShared"] != false ||
		kp["ssl.truststore.type"] != "PEM" || kp["ssl.truststore.certificates"] != pki.CAPEM || kp["sasl.jaas.config"] != nil {
		t.Fatalf("resolve: %v", r)
	}
	other, _ := kafka.NewPKI("another CA")
	refusedAtStart(t, addr, kafka.SASLSSL(other, nil).ClientProperties("emulator", "emulator-secret"), "presented a certificate signed by an untrusted CA")
	refusedAtStart(t, addr, kafka.SASLSSL(pki, nil).ClientProperties("emulator", "wrong"), "credentials in sasl.jaas.config")
}

func TestSecuredKfakeMutualTLS(t *testing.T) {
	pki, err := kafka.NewPKI("kfake CA")
	if err != nil {
		t.Fatal(err)
	}
	addr := securedKfake(t, pki, true, false)
	sec, err := kafka.MutualTLS(pki)
	if err != nil {
		t.Fatal(err)
	}
	props := sec.ClientProperties("", "")
	props["fabrictest.share.credentials"] = "true"
	e := startEnv(t, emulator.WithKafka(addr), emulator.WithKafkaProperties(props))
	deliverSecured(t, e)
	r := resolved(t, e)
	kp, _ := r["kafkaProperties"].(map[string]any)
	if r["securityProtocol"] != "SSL" || r["saslMechanism"] != nil || kp["ssl.keystore.certificate.chain"] != sec.ClientCertPEM ||
		!strings.HasPrefix(kp["ssl.keystore.key"].(string), "-----BEGIN PRIVATE KEY-----") {
		t.Fatalf("resolve: %v", r)
	}
	noCert := sec.ClientProperties("", "")
	for _, k := range []string{"ssl.keystore.type", "ssl.keystore.certificate.chain", "ssl.keystore.key"} {
		delete(noCert, k)
	}
	refusedAtStart(t, addr, noCert, "it requires a client certificate")
}

// Java-minded settings: a JKS trust store (Kafka's default type) and a
// PKCS12 key store made by keytool, on a cluster that requires a client
// certificate; notebooks are handed the same credentials as PEM.
func TestSecuredKfakeJavaStores(t *testing.T) {
	pki, err := kafka.NewPKI("kfake CA")
	if err != nil {
		t.Fatal(err)
	}
	addr := securedKfake(t, pki, true, false)
	sec, err := kafka.MutualTLS(pki)
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.Make(t, pki.CAPEM, sec.ClientCertPEM, sec.ClientKeyPEM)
	props := map[string]string{"security.protocol": "SSL", "fabrictest.share.credentials": "true",
		"ssl.truststore.location": st.TrustJKS, "ssl.truststore.password": st.Password,
		"ssl.keystore.type": "PKCS12", "ssl.keystore.location": st.KeyPKCS12, "ssl.keystore.password": st.Password}
	e := startEnv(t, emulator.WithKafka(addr), emulator.WithKafkaConfigFile(writeClientProperties(t, props)))
	deliverSecured(t, e)
	r := resolved(t, e)
	kp, _ := r["kafkaProperties"].(map[string]any)
	if kp["ssl.truststore.type"] != "PEM" || kp["ssl.truststore.certificates"] != pki.CAPEM || kp["ssl.truststore.password"] != nil ||
		!strings.HasPrefix(kp["ssl.keystore.certificate.chain"].(string), sec.ClientCertPEM) || kp["ssl.keystore.password"] != nil {
		t.Fatalf("resolve: %v", r)
	}
	wrong := maps.Clone(props)
	wrong["ssl.keystore.password"] = "not-the-password"
	refusedAtStart(t, addr, wrong, "kafka config ssl.keystore.password: does not open the PKCS12 store (wrong password)")
}

// The settings are checked before anything connects; each error names the key.
func TestKafkaConfigRefusedAtStart(t *testing.T) {
	for name, tc := range map[string]struct {
		opts []emulator.Option
		want string
	}{
		"embedded broker": {[]emulator.Option{emulator.WithKafkaProperties(map[string]string{"security.protocol": "SSL"})},
			"kafka config security.protocol: SSL needs a cluster"},
		"no broker": {[]emulator.Option{emulator.WithKafka("none"), emulator.WithKafkaProperties(map[string]string{"security.protocol": "SSL"})},
			"not the none broker"},
		"Kerberos from a ticket cache": {[]emulator.Option{emulator.WithKafka("127.0.0.1:1"), emulator.WithKafkaProperties(map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "GSSAPI",
			"sasl.kerberos.service.name": "kafka", "sasl.jaas.config": "com.sun.security.auth.module.Krb5LoginModule required useTicketCache=true;"})},
			"kafka config sasl.jaas.config: useTicketCache=true without useKeyTab=true"},
		"JKS without its password": {[]emulator.Option{emulator.WithKafka("127.0.0.1:1"), emulator.WithKafkaProperties(map[string]string{"security.protocol": "SSL", "ssl.truststore.location": "/x.jks"})},
			"kafka config ssl.truststore.password: required to open a JKS store"},
		"two clusters": {[]emulator.Option{emulator.WithKafka("127.0.0.1:1"), emulator.WithKafkaProperties(map[string]string{"bootstrap.servers": "127.0.0.1:2"})},
			"kafka config bootstrap.servers: 127.0.0.1:2 differs from --kafka 127.0.0.1:1"},
		"missing file": {[]emulator.Option{emulator.WithKafka("127.0.0.1:1"), emulator.WithKafkaConfigFile("/nonexistent/client.properties")},
			"read kafka config"},
		"environment": {[]emulator.Option{emulator.WithKafka("127.0.0.1:1"), emulator.WithKafkaEnv([]string{"FABRIC_KAFKA_CONFIG_SSL_KEYSTORE_TYPE=BKS", "FABRIC_KAFKA_CONFIG_SSL_KEYSTORE_LOCATION=/x.bks", "FABRIC_KAFKA_CONFIG_SECURITY_PROTOCOL=SSL"})},
			`kafka config ssl.keystore.type: "BKS" is not PEM, JKS or PKCS12`},
	} {
		t.Run(name, func(t *testing.T) {
			srv, err := emulator.New(tc.opts...)
			if err == nil {
				srv.Close()
				t.Fatal("started")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

// bootstrap.servers names the cluster when --kafka is left at its default.
func TestKafkaConfigBootstrap(t *testing.T) {
	_, addr := kafkaCluster(t)
	e := startEnv(t, emulator.WithKafkaProperties(map[string]string{"bootstrap.servers": addr}))
	if got := strings.Join(e.srv.KafkaBootstrap(), ","); got != addr || e.srv.KafkaKind() != "external" {
		t.Fatalf("bootstrap %s (%s), want %s", got, e.srv.KafkaKind(), addr)
	}
}
