package testclients

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Hints for the clients of the TLS wire tests.
const (
	JavaInstallHint       = "run `bash scripts/install-java-clients.sh` (make test-deps: kafka-clients into .cache/java-clients; needs mvn and a JDK)"
	ConfluentInstallHint  = "run `bash scripts/install-python-deps.sh` (make test-deps: confluent-kafka into .cache/venv), or set FABRICTEST_PYTHON to a python that imports confluent_kafka"
	javaProducerSource    = "internal/testclients/java/SaslSslProducer.java"
	javaClientsDirFromTop = ".cache/java-clients"
	// JavaEventHubsInstallHint is the hint of the Java Event Hubs client.
	JavaEventHubsInstallHint = "run `bash scripts/install-java-clients.sh` (make test-deps: azure-messaging-eventhubs and azure-identity into .cache/java-eventhubs; needs mvn and a JDK)"
	javaEventHubsSource      = "internal/testclients/java/eventhubs/EventHubsRoundTrip.java"
	javaEventHubsDirFromTop  = ".cache/java-eventhubs"
)

// JavaKafka fails the test unless a JDK's java and the kafka-clients jars
// of scripts/install-java-clients.sh are there, and returns the java
// command's path, the class path and the SaslSslProducer source to run.
func JavaKafka(t testing.TB) (java, classpath, source string) {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	java, err = exec.LookPath("java")
	if err != nil {
		t.Fatalf("java not found on PATH (%v): %s", err, JavaInstallHint)
	}
	dir := filepath.Join(root, javaClientsDirFromTop)
	jars, _ := filepath.Glob(filepath.Join(dir, "kafka-clients-*.jar"))
	if len(jars) == 0 {
		t.Fatalf("no kafka-clients jar in %s: %s", dir, JavaInstallHint)
	}
	t.Logf("Java client: %s", filepath.Base(jars[0]))
	return java, filepath.Join(dir, "*"), filepath.Join(root, javaProducerSource)
}

// JavaEventHubs fails the test unless a JDK's java and keytool and the
// azure-messaging-eventhubs jars of scripts/install-java-clients.sh are
// there, and returns the java command's path, the class path and the
// EventHubsRoundTrip source to run.
func JavaEventHubs(t testing.TB) (java, classpath, source string) {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	java, err = exec.LookPath("java")
	if err != nil {
		t.Fatalf("java not found on PATH (%v): %s", err, JavaEventHubsInstallHint)
	}
	dir := filepath.Join(root, javaEventHubsDirFromTop)
	for _, jar := range []string{"azure-messaging-eventhubs-*.jar", "azure-identity-*.jar"} {
		jars, _ := filepath.Glob(filepath.Join(dir, jar))
		if len(jars) == 0 {
			t.Fatalf("no %s in %s: %s", jar, dir, JavaEventHubsInstallHint)
		}
		t.Logf("Java client: %s", filepath.Base(jars[0]))
	}
	return java, filepath.Join(dir, "*"), filepath.Join(root, javaEventHubsSource)
}

// JavaTrustStore writes a PKCS12 trust store holding the PEM CA certificate
// with the JDK's keytool and returns its path and password, for
// -Djavax.net.ssl.trustStore.
func JavaTrustStore(t testing.TB, caPEM []byte) (path, password string) {
	t.Helper()
	keytool, err := exec.LookPath("keytool")
	if err != nil {
		t.Fatalf("keytool not found on PATH (%v): %s", err, JavaEventHubsInstallHint)
	}
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	path, password = filepath.Join(dir, "truststore.p12"), "fabrictest"
	out, err := exec.CommandContext(t.Context(), keytool, "-importcert", "-noprompt", "-alias", "fabrictest-ca",
		"-file", ca, "-keystore", path, "-storetype", "PKCS12", "-storepass", password).CombinedOutput()
	if err != nil {
		t.Fatalf("keytool -importcert: %v: %s", err, bytes.TrimSpace(out))
	}
	return path, password
}

// ConfluentKafka fails the test unless the project's Python (DeltaPython)
// imports confluent_kafka, logs the client and librdkafka versions and
// returns the interpreter's path.
func ConfluentKafka(t testing.TB) string {
	t.Helper()
	py, err := DeltaPython()
	if err != nil {
		t.Fatalf("%v: %s", err, ConfluentInstallHint)
	}
	if _, err := os.Stat(py); err != nil {
		t.Fatalf("python %s: %v: %s", py, err, ConfluentInstallHint)
	}
	ctx, cancel := context.WithTimeout(t.Context(), probeTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, "-c", "import confluent_kafka as c; print(c.version(), 'librdkafka', c.libversion()[0])").CombinedOutput()
	if err != nil {
		t.Fatalf("%s cannot import confluent_kafka: %v: %s: %s", py, err, bytes.TrimSpace(out), ConfluentInstallHint)
	}
	t.Logf("confluent-kafka %s", bytes.TrimSpace(out))
	return py
}
