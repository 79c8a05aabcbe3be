// Package testclients runs the third-party Kafka clients the wire tests
// check the emulator against: kcat (librdkafka) and kafka-python. A missing
// client fails the test with how to install it; it never skips.
//
// It lives under the module's internal/ so that every test package of the
// module (emulator, its gateway, fabrictest, specs) shares one copy, and no
// user can import it.
package testclients

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"
)

const (
	// InstallHint is how to get the clients.
	InstallHint = "install the wire-test clients with `bash scripts/install-test-deps.sh` (make test-deps: kcat and python3-kafka)"
	// SystemPython is the interpreter the python3-kafka package installs
	// kafka-python into.
	SystemPython = "/usr/bin/python3"
	// Timeout bounds one client subprocess.
	Timeout = 40 * time.Second
	// probeTimeout bounds a version probe.
	probeTimeout = 10 * time.Second
)

// Kcat fails the test unless kcat is on PATH and runs, and returns its path.
func Kcat(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("kcat")
	if err != nil {
		t.Fatalf("kcat not found on PATH (%v): %s", err, InstallHint)
	}
	ctx, cancel := context.WithTimeout(t.Context(), probeTimeout)
	defer cancel()
	if out, err := exec.CommandContext(ctx, path, "-V").CombinedOutput(); err != nil {
		t.Fatalf("kcat -V: %v: %s: %s", err, out, InstallHint)
	}
	return path
}

// KafkaPython fails the test unless SystemPython imports kafka
// (kafka-python), logs its version and returns the interpreter's path.
func KafkaPython(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), probeTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, SystemPython, "-c", "import kafka; print(kafka.__version__)").CombinedOutput()
	if err != nil {
		t.Fatalf("%s with the kafka module (kafka-python) is required: %v: %s: %s", SystemPython, err, bytes.TrimSpace(out), InstallHint)
	}
	t.Logf("kafka-python %s", bytes.TrimSpace(out))
	return SystemPython
}

// Run runs a client subprocess with stdin (none when nil), bounded by
// Timeout, and returns its stdout; it fails the test with the client's
// stderr on any error.
func Run(t testing.TB, stdin []byte, name string, args ...string) []byte {
	t.Helper()
	return RunWithin(t, Timeout, stdin, name, args...)
}

// RunWithin is Run bounded by timeout instead of Timeout, for a client
// run that does more (several producers in one JVM).
func RunWithin(t testing.TB, timeout time.Duration, stdin []byte, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 2 * time.Second
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %v; stderr: %s", name, timeout, stderr.Bytes())
	}
	if err != nil {
		t.Fatalf("%s: %v; stderr: %s", name, err, stderr.Bytes())
	}
	t.Logf("%s ran in %v (%d bytes out)", name, time.Since(start).Round(time.Millisecond), stdout.Len())
	return stdout.Bytes()
}
