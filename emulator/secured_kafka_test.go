//go:build container

// The emulator against a secured Apache Kafka (the local image, started by
// fixtures/kafka with WithSecurity): SASL_SSL with SCRAM-SHA-512, and SSL
// with client certificates (mutual TLS). Run by `make test-container`:
//
//	TESTCONTAINERS_RYUK_DISABLED=true FABRICTEST_KAFKA_IMAGE=fabrictest/kafka:3.9.1-local \
//	  go test -tags container -count=1 -run TestSecuredKafka ./emulator/

package emulator_test

import (
	"context"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/internal/kafkaconfig/storetest"
	"github.com/fabrictest/fabrictest/fixtures/kafka"
)

// securedBroker starts the local Kafka image secured as sec.
func securedBroker(t *testing.T, ctx context.Context, sec *kafka.Security) string {
	t.Helper()
	start := time.Now()
	kc, err := kafka.Run(ctx, kafka.ImageFromEnv(), kafka.WithSecurity(sec))
	testcontainers.CleanupContainer(t, kc)
	if err != nil {
		t.Fatalf("run %s kafka: %v", sec.Protocol, err)
	}
	brokers, err := kc.Brokers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s kafka ready at %s in %s", sec.Protocol, brokers[0], time.Since(start).Round(time.Second))
	return brokers[0]
}

func TestSecuredKafkaSASLSSL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	pki, err := kafka.NewPKI("secured-kafka CA")
	if err != nil {
		t.Fatal(err)
	}
	sec := kafka.SASLSSL(pki, map[string]string{"emulator": "emulator-secret"})
	addr := securedBroker(t, ctx, sec)
	props := sec.ClientProperties("emulator", "emulator-secret")

	e := startEnv(t, emulator.WithKafka(addr), emulator.WithKafkaConfigFile(writeClientProperties(t, props)))
	deliverSecured(t, e)

	// Notebooks are told the protocol, the mechanism and the CA, not the password.
	r := resolved(t, e)
	kp, _ := r["kafkaProperties"].(map[string]any)
	if r["securityProtocol"] != "SASL_SSL" || r["saslMechanism"] != "SCRAM-SHA-512" || kp["ssl.truststore.certificates"] != pki.CAPEM || kp["sasl.jaas.config"] != nil {
		t.Fatalf("resolve: %v", r)
	}

	wrong := sec.ClientProperties("emulator", "not-the-password")
	refusedAtStart(t, addr, wrong, `refused the SASL SCRAM-SHA-512 login of user "emulator" (wrong username or password in sasl.jaas.config?)`)
	other, _ := kafka.NewPKI("another CA")
	untrusted := kafka.SASLSSL(other, nil).ClientProperties("emulator", "emulator-secret")
	refusedAtStart(t, addr, untrusted, "presented a certificate signed by an untrusted CA")
}

func TestSecuredKafkaMutualTLS(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	pki, err := kafka.NewPKI("secured-kafka CA")
	if err != nil {
		t.Fatal(err)
	}
	sec, err := kafka.MutualTLS(pki)
	if err != nil {
		t.Fatal(err)
	}
	addr := securedBroker(t, ctx, sec)
	props := sec.ClientProperties("", "")
	props["fabrictest.share.credentials"] = "true"

	e := startEnv(t, emulator.WithKafka(addr), emulator.WithKafkaConfigFile(writeClientProperties(t, props)))
	deliverSecured(t, e)

	// Shared: the notebook gets the client certificate and key too.
	r := resolved(t, e)
	kp, _ := r["kafkaProperties"].(map[string]any)
	if r["securityProtocol"] != "SSL" || r["credentialsShared"] != true || kp["ssl.keystore.certificate.chain"] != sec.ClientCertPEM || kp["ssl.keystore.type"] != "PEM" {
		t.Fatalf("resolve: %v", r)
	}

	// The same cluster through Java stores made by keytool: a JKS trust
	// store (Kafka's default type) and a JKS key store whose key has a
	// password of its own.
	st := storetest.Make(t, pki.CAPEM, sec.ClientCertPEM, sec.ClientKeyPEM)
	javaProps := map[string]string{"security.protocol": "SSL",
		"ssl.truststore.location": st.TrustJKS, "ssl.truststore.password": st.Password,
		"ssl.keystore.location": st.KeyJKS, "ssl.keystore.password": st.Password, "ssl.key.password": st.KeyPassword}
	deliverSecured(t, startEnv(t, emulator.WithKafka(addr), emulator.WithKafkaProperties(javaProps)))

	noCert := sec.ClientProperties("", "")
	delete(noCert, "ssl.keystore.type")
	delete(noCert, "ssl.keystore.certificate.chain")
	delete(noCert, "ssl.keystore.key")
	refusedAtStart(t, addr, noCert, "it requires a client certificate")
	other, _ := kafka.NewPKI("another CA")
	untrusted := sec.ClientProperties("", "")
	untrusted["ssl.truststore.certificates"] = other.CAPEM
	refusedAtStart(t, addr, untrusted, "presented a certificate signed by an untrusted CA")
}
