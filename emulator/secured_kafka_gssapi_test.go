//go:build container

// The emulator against a Kerberized Apache Kafka (fixtures/kerberos: an MIT
// KDC and a broker whose listener is SASL_PLAINTEXT with GSSAPI, or SASL_SSL
// with it). Run by
// `make test-container`:
//
//	TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 \
//	  FABRICTEST_KAFKA_IMAGE=fabrictest/kafka:3.9.1-local \
//	  go test -tags container -count=1 -run '^TestSecuredKafkaGSSAPI' ./emulator/

package emulator_test

import (
	"context"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/kerberos"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/fixtures/kafka"
	fk "github.com/fabrictest/fabrictest/fixtures/kerberos"
)

// kerberizedKafka starts the KDC and the Kerberized broker and points
// KRB5_CONFIG at the cluster's krb5.conf for the test.
func kerberizedKafka(t *testing.T, ctx context.Context, opts ...fk.Option) *fk.Cluster {
	t.Helper()
	start := time.Now()
	c, err := fk.Run(ctx, opts...)
	if err != nil {
		t.Fatalf("run kerberized kafka: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Terminate(context.Background()); err != nil {
			t.Errorf("terminate: %v", err)
		}
	})
	t.Setenv("KRB5_CONFIG", c.Krb5Conf)
	t.Logf("KDC %s and GSSAPI %s broker %s ready in %s", c.KDCAddr, c.Protocol, c.Brokers[0], time.Since(start).Round(time.Second))
	return c
}

func TestSecuredKafkaGSSAPI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := kerberizedKafka(t, ctx)
	addr := c.Brokers[0]

	// The cluster named by bootstrap.servers in the file, as a Java client's.
	e := startEnv(t, emulator.WithKafkaConfigFile(writeClientProperties(t, c.KafkaProperties())))
	deliverSecured(t, e)

	// Produced through the emulator, read back from the broker by a client
	// of its own with franz-go's Kerberos mechanism.
	s := newStream(e)
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"k":"a"}},{"value":{"k":"b"}}]}`))
	r := e.must(200, e.call("GET", "/v1/eventstreams/"+s.id+"/sources/"+s.ds, nil)).Body
	if got := readGSSAPI(t, ctx, c, r["topic"].(string), 2); got != `{"k":"a"} {"k":"b"}` {
		t.Fatalf("read from the broker: %s", got)
	}

	// Notebooks are told the protocol, the mechanism and the service name,
	// not the keytab.
	kp, _ := r["kafkaProperties"].(map[string]any)
	if r["securityProtocol"] != "SASL_PLAINTEXT" || r["saslMechanism"] != "GSSAPI" || kp["sasl.kerberos.service.name"] != "kafka" || kp["sasl.jaas.config"] != nil {
		t.Fatalf("resolve: %v", r)
	}
	shared := maps.Clone(c.KafkaProperties())
	shared["fabrictest.share.credentials"] = "true"
	kp, _ = resolved(t, startEnv(t, emulator.WithKafkaProperties(shared)))["kafkaProperties"].(map[string]any)
	if kp["sasl.jaas.config"] != c.JAAS() || kp["sasl.mechanism"] != "GSSAPI" {
		t.Fatalf("shared resolve: %v", kp)
	}

	// A bootstrap server written as an IP address: the broker's service
	// principal is named after the host the address resolves back to
	// (kafka/localhost), as the Java client names it.
	byAddr := maps.Clone(c.KafkaProperties())
	_, port, _ := net.SplitHostPort(addr)
	byAddr["bootstrap.servers"] = net.JoinHostPort("127.0.0.1", port)
	ea := startEnv(t, emulator.WithKafkaProperties(byAddr))
	sa := newStream(ea)
	ea.must(200, ea.call("POST", sa.produce, `{"events":[{"value":{"k":"by address"}}]}`))

	// At start: a principal the KDC does not know, a service name the
	// broker's principal does not have.
	unknown := maps.Clone(c.KafkaProperties())
	unknown["sasl.jaas.config"] = fmt.Sprintf(`com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab="%s" principal="nobody@%s";`,
		nobodyKeytab(t, c.Realm), c.Realm)
	refusedAtStart(t, addr, unknown, "kerberos login as nobody@FABRICTEST.LOCAL: the KDC of realm FABRICTEST.LOCAL does not know the principal (client not found in Kerberos database)")
	wrongService := maps.Clone(c.KafkaProperties())
	wrongService["sasl.kerberos.service.name"] = "kafka-other"
	refusedAtStart(t, addr, wrongService, "does not know the broker's service principal kafka-other/localhost@FABRICTEST.LOCAL (server not found in Kerberos database); check sasl.kerberos.service.name")

	// A KDC out of reach: krb5.conf names a port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	conf, err := os.ReadFile(c.Krb5Conf)
	if err != nil || !strings.Contains(string(conf), c.KDCAddr) {
		t.Fatalf("krb5.conf does not name the KDC at %s (%v):\n%s", c.KDCAddr, err, conf)
	}
	dead := filepath.Join(t.TempDir(), "krb5.conf")
	if err := os.WriteFile(dead, []byte(strings.ReplaceAll(string(conf), c.KDCAddr, closed)), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KRB5_CONFIG", dead)
	refusedAtStart(t, addr, c.KafkaProperties(), "the KDC of realm FABRICTEST.LOCAL cannot be reached at "+closed+" (kdc in "+dead+")")
}

// The same over SASL_SSL: the broker's GSSAPI listener behind TLS, its
// certificate signed by a CA of the test that the emulator trusts from
// client.properties (ssl.truststore.location, a PEM file).
func TestSecuredKafkaGSSAPIOverTLS(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	pki, err := kafka.NewPKI("kerberos-tls CA")
	if err != nil {
		t.Fatal(err)
	}
	c := kerberizedKafka(t, ctx, fk.WithTLS(pki))
	props := c.KafkaProperties()
	if props["security.protocol"] != "SASL_SSL" {
		t.Fatalf("KafkaProperties() = %v", props)
	}

	// HTTP and custom-endpoint produces drained into a Lakehouse by the
	// emulator's own consumer over GSSAPI and TLS.
	e := startEnv(t, emulator.WithKafkaConfigFile(writeClientProperties(t, props)))
	f := deliverSecured(t, e)

	// The custom endpoint's records (the Kafka gateway opens TLS to the
	// broker and logs in with GSSAPI itself), read back from the broker by a
	// client of the test over GSSAPI and TLS.
	if got := readGSSAPI(t, ctx, c, f.topic, 5); got != `{"n":0} {"n":1} {"n":2} {"n":3} {"n":4}` {
		t.Fatalf("read the custom endpoint's records from the broker: %s", got)
	}

	// An HTTP produce, read back the same way.
	s := newStream(e)
	e.must(200, e.call("POST", s.produce, `{"events":[{"value":{"k":"tls-a"}},{"value":{"k":"tls-b"}}]}`))
	r := e.must(200, e.call("GET", "/v1/eventstreams/"+s.id+"/sources/"+s.ds, nil)).Body
	if got := readGSSAPI(t, ctx, c, r["topic"].(string), 2); got != `{"k":"tls-a"} {"k":"tls-b"}` {
		t.Fatalf("read from the broker: %s", got)
	}

	// Notebooks are told the protocol, the mechanism, the service name and
	// the CA, not the keytab.
	kp, _ := r["kafkaProperties"].(map[string]any)
	if r["securityProtocol"] != "SASL_SSL" || r["saslMechanism"] != "GSSAPI" || kp["sasl.kerberos.service.name"] != "kafka" ||
		kp["ssl.truststore.type"] != "PEM" || kp["ssl.truststore.certificates"] != pki.CAPEM || kp["sasl.jaas.config"] != nil {
		t.Fatalf("resolve: %v", r)
	}

	// A CA that did not sign the broker's certificate.
	other, err := kafka.NewPKI("another CA")
	if err != nil {
		t.Fatal(err)
	}
	untrusted := maps.Clone(props)
	untrusted["ssl.truststore.certificates"] = other.CAPEM
	refusedAtStart(t, c.Brokers[0], untrusted, "presented a certificate signed by an untrusted CA")
}

// readGSSAPI reads n records of topic from the start with a franz-go client
// that logs in as the cluster's client principal (over TLS when the cluster
// has it), and returns their values joined by spaces.
func readGSSAPI(t *testing.T, ctx context.Context, c *fk.Cluster, topic string, n int) string {
	t.Helper()
	cfg, err := config.Load(c.Krb5Conf)
	if err != nil {
		t.Fatal(err)
	}
	kt, err := keytab.Load(c.ClientKeytab)
	if err != nil {
		t.Fatal(err)
	}
	user := strings.TrimSuffix(c.ClientPrincipal, "@"+c.Realm)
	kc := client.NewWithKeytab(user, c.Realm, kt, cfg, client.DisablePAFXFAST(true))
	opts := []kgo.Opt{kgo.SeedBrokers(c.Brokers...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.SASL(kerberos.Auth{Client: kc, Service: c.ServiceName}.AsMechanismWithClose())}
	if tc := c.TLSConfig(); tc != nil {
		opts = append(opts, kgo.DialTLSConfig(tc))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var values []string
	for len(values) < n {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("read %s: %d of %d records: %v", topic, len(values), n, fs.Errors())
		}
		fs.EachRecord(func(r *kgo.Record) { values = append(values, string(r.Value)) })
	}
	return strings.Join(values, " ")
}

// nobodyKeytab writes a keytab for nobody@realm, a principal the KDC does
// not have.
func nobodyKeytab(t *testing.T, realm string) string {
	t.Helper()
	kt := keytab.New()
	if err := kt.AddEntry("nobody", realm, "not-in-the-kdc", time.Now(), 1, etypeID.AES256_CTS_HMAC_SHA1_96); err != nil {
		t.Fatal(err)
	}
	b, err := kt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "nobody.keytab")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
