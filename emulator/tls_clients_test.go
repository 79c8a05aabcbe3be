package emulator_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/internal/tlsca"
	"github.com/fabrictest/fabrictest/internal/testclients"
)

// Kafka clients nobody here wrote, configured as Fabric's custom endpoint
// says (learn.microsoft.com/fabric/real-time-intelligence/event-streams/
// add-source-custom-app, Kafka tab: security.protocol SASL_SSL,
// sasl.mechanism PLAIN, username "$ConnectionString", the connection
// string as password) against an emulator started with TLS. The only
// settings that differ from Fabric's are the endpoint (the connection
// string's namespace) and the CA the client trusts: ssl.ca.location for
// librdkafka, a PEM truststore for Java.

// tlsEndpoint is an emulator with TLS, its endpoint topology deployed, the
// source's connection, and the CA written to a file.
type tlsEndpoint struct {
	endpointFixture
	conn   connectionJSON
	caFile string
}

func deployTLSEndpoint(t *testing.T) tlsEndpoint {
	t.Helper()
	e, _ := startServed(t, emulator.WithTLS())
	f := deployEndpointIn(e)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, e.srv.CACertificate(), 0o600); err != nil {
		t.Fatal(err)
	}
	return tlsEndpoint{endpointFixture: f, conn: f.connection("GET", "/sources/"+f.src+"/connection", nil), caFile: caFile}
}

// lines is n JSON events, one a line.
func lines(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"n\":%d}\n", i)
	}
	return []byte(b.String())
}

// kcatArgs are librdkafka's settings from Fabric's Kafka tab, plus the CA.
func (f tlsEndpoint) kcatArgs(protocol string) []string {
	return []string{"-b", f.conn.FullyQualifiedNamespace, "-X", "security.protocol=" + protocol, "-X", "sasl.mechanisms=PLAIN",
		"-X", "sasl.username=$ConnectionString", "-X", "sasl.password=" + f.conn.AccessKeys.PrimaryConnectionString,
		"-X", "ssl.ca.location=" + f.caFile}
}

// TestTLSKcat: kcat (librdkafka) produces over SASL_SSL into the Lakehouse.
func TestTLSKcat(t *testing.T) {
	kcat := testclients.Kcat(t)
	f := deployTLSEndpoint(t)
	testclients.Run(t, lines(20), kcat, append(f.kcatArgs("SASL_SSL"), "-t", f.conn.EventHubName, "-P")...)
	waitRows(t, f.table, 20)
}

// confluentProducer is Fabric's Python sample for the custom endpoint
// (confluent_kafka.Producer with SASL_SSL and PLAIN), with ssl.ca.location.
const confluentProducer = `
import sys
from confluent_kafka import Producer
bootstrap, password, ca, topic, protocol = sys.argv[1:6]
conf = {"bootstrap.servers": bootstrap, "security.protocol": protocol, "sasl.mechanism": "PLAIN",
        "sasl.username": "$ConnectionString", "sasl.password": password, "ssl.ca.location": ca,
        "message.timeout.ms": 8000}
errors = []
p = Producer(conf, logger=None)
n = 0
for line in sys.stdin:
    p.produce(topic, line.rstrip("\n").encode(), callback=lambda err, msg: err and errors.append(str(err)))
    n += 1
left = p.flush(20)
if errors or left:
    sys.stderr.write("delivery failed: %d undelivered, %s\n" % (left, errors[:1]))
    sys.exit(1)
print(n)
`

// TestTLSConfluentKafka: confluent-kafka (librdkafka) from Python produces
// over SASL_SSL into the Lakehouse.
func TestTLSConfluentKafka(t *testing.T) {
	py := testclients.ConfluentKafka(t)
	f := deployTLSEndpoint(t)
	out := testclients.Run(t, lines(15), py, "-c", confluentProducer, f.conn.FullyQualifiedNamespace,
		f.conn.AccessKeys.PrimaryConnectionString, f.caFile, f.conn.EventHubName, "SASL_SSL")
	if strings.TrimSpace(string(out)) != "15" {
		t.Fatalf("confluent-kafka printed %q, want 15", out)
	}
	waitRows(t, f.table, 15)
}

// javaProperties are kafka-clients' settings from Fabric's Kafka tab,
// plus the CA as a PEM truststore (KIP-651).
func (f tlsEndpoint) javaProperties(t *testing.T) string {
	props := strings.Join([]string{
		"bootstrap.servers=" + f.conn.FullyQualifiedNamespace,
		"security.protocol=SASL_SSL",
		"sasl.mechanism=PLAIN",
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="$ConnectionString" password="` + f.conn.AccessKeys.PrimaryConnectionString + `";`,
		"ssl.truststore.type=PEM",
		"ssl.truststore.location=" + f.caFile,
		"delivery.timeout.ms=20000", "request.timeout.ms=10000",
	}, "\n")
	path := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(path, []byte(props), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTLSJavaKafkaClients: Apache kafka-clients' KafkaProducer produces
// over SASL_SSL, trusting the CA as a PEM truststore, into the Lakehouse.
func TestTLSJavaKafkaClients(t *testing.T) {
	java, cp, src := testclients.JavaKafka(t)
	f := deployTLSEndpoint(t)
	out := testclients.Run(t, lines(12), java, "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", cp, src,
		f.javaProperties(t), f.conn.EventHubName)
	if strings.TrimSpace(string(out)) != "12" {
		t.Fatalf("kafka-clients printed %q, want 12", out)
	}
	waitRows(t, f.table, 12)
}

// TestTLSClientsWrongProtocol: librdkafka told SASL_PLAINTEXT on the
// SASL_SSL endpoint fails, and says the security protocol may be wrong;
// trusting another CA, it fails verifying the certificate; the emulator
// keeps serving the right clients.
func TestTLSClientsWrongProtocol(t *testing.T) {
	kcat := testclients.Kcat(t)
	f := deployTLSEndpoint(t)
	stderr := runFailing(t, lines(1), kcat, append(f.kcatArgs("SASL_PLAINTEXT"), "-X", "message.timeout.ms=4000", "-t", f.conn.EventHubName, "-P")...)
	if !strings.Contains(stderr, "security.protocol") {
		t.Fatalf("kcat's error does not point at security.protocol: %s", stderr)
	}
	foreign, err := tlsca.Load(tlsca.Options{})
	if err != nil {
		t.Fatal(err)
	}
	other := f
	other.caFile = filepath.Join(t.TempDir(), "other-ca.pem")
	if err := os.WriteFile(other.caFile, foreign.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	stderr = runFailing(t, lines(1), kcat, append(other.kcatArgs("SASL_SSL"), "-X", "message.timeout.ms=4000", "-t", f.conn.EventHubName, "-P")...)
	if !strings.Contains(stderr, "certificate verify failed") {
		t.Fatalf("kcat trusting another CA: %s", stderr)
	}
	testclients.Run(t, lines(2), kcat, append(f.kcatArgs("SASL_SSL"), "-t", f.conn.EventHubName, "-P")...)
	waitRows(t, f.table, 2)
}

// runFailing runs a client that must fail within 30 s and returns its stderr.
func runFailing(t *testing.T, stdin []byte, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = strings.NewReader(string(stdin))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s did not give up within 30 s; stderr: %s", name, stderr.String())
	}
	if err == nil {
		t.Fatalf("%s succeeded; want a failure. stderr: %s", name, stderr.String())
	}
	t.Logf("%s failed as it should: %s", filepath.Base(name), strings.TrimSpace(stderr.String()))
	return stderr.String()
}

// pythonHTTPS asks the health route with azure-core's pipeline (the
// transport of Microsoft's Python SDKs, over requests) trusting the CA by
// REQUESTS_CA_BUNDLE, and with the standard library's urllib trusting it
// by SSL_CERT_FILE; then once with neither, which must fail verification.
const pythonHTTPS = `
import sys, urllib.request
from azure.core import PipelineClient
from azure.core.rest import HttpRequest
url = sys.argv[1] + "/_emulator/health"
if sys.argv[2] == "azure-core":
    print(PipelineClient(base_url=sys.argv[1]).send_request(HttpRequest("GET", url)).status_code)
else:
    print(urllib.request.urlopen(url).status)
`

// TestTLSPythonCABundle: the README's settings for Python HTTP clients
// (REQUESTS_CA_BUNDLE for requests and azure-core, SSL_CERT_FILE for the
// ssl module's default context) are all it takes; without them the
// emulator's certificate is refused.
func TestTLSPythonCABundle(t *testing.T) {
	py, err := testclients.DeltaPython()
	if err != nil {
		t.Fatal(err)
	}
	f := deployTLSEndpoint(t)
	var base []string // the environment without any CA bundle setting
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "REQUESTS_CA_BUNDLE" && k != "CURL_CA_BUNDLE" && k != "SSL_CERT_FILE" {
			base = append(base, kv)
		}
	}
	for _, c := range []struct{ client, env string }{{"azure-core", "REQUESTS_CA_BUNDLE"}, {"urllib", "SSL_CERT_FILE"}} {
		cmd := exec.CommandContext(t.Context(), py, "-c", pythonHTTPS, f.e.url, c.client)
		cmd.Env = append(base, c.env+"="+f.caFile)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "200" {
			t.Fatalf("%s with %s: %v: %s", c.client, c.env, err, out)
		}
		cmd = exec.CommandContext(t.Context(), py, "-c", pythonHTTPS, f.e.url, c.client)
		cmd.Env = base
		out, err = cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "CERTIFICATE_VERIFY_FAILED") {
			t.Fatalf("%s without %s: %v: %s; want a verification failure", c.client, c.env, err, out)
		}
	}
}

// TestPlainEndpointRefusesSASLSSL: without TLS, librdkafka told SASL_SSL
// fails in its TLS handshake (the endpoint closes the connection, as an
// Apache Kafka plain-text listener does), and the emulator's log says
// why, once (the other bad-protocol case of issue 16, item 5).
func TestPlainEndpointRefusesSASLSSL(t *testing.T) {
	kcat := testclients.Kcat(t)
	e, logs := startServed(t)
	f := deployEndpointIn(e)
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	stderr := runFailing(t, lines(1), kcat, "-b", c.FullyQualifiedNamespace, "-X", "security.protocol=SASL_SSL", "-X", "sasl.mechanisms=PLAIN",
		"-X", "sasl.username=$ConnectionString", "-X", "sasl.password="+c.AccessKeys.PrimaryConnectionString,
		"-X", "message.timeout.ms=4000", "-t", c.EventHubName, "-P")
	if !strings.Contains(stderr, "SSL_HANDSHAKE") {
		t.Fatalf("kcat's error does not say the TLS handshake failed: %s", stderr)
	}
	waitLog(t, logs, "a TLS client on the plain-text endpoint")
}
