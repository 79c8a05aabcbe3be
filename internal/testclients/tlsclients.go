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
