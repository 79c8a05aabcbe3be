package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// endpointInLine is the custom endpoint's address in the ready line.
var endpointInLine = regexp.MustCompile(`custom endpoint (\S+?)[,)]`)

// TestTLSProcess: `serve --tls` prints an https URL and where the CA is;
// `fabric-emulator ca` prints that CA from the data dir and, without one,
// from the running emulator's route; `token` finds the HTTPS emulator by
// itself; and `openssl s_client -verify_return_error` verifies both TLS
// ports (the API and the custom endpoint's Kafka surface, which Fabric's
// Kafka tab names with security.protocol SASL_SSL) against the CA, for the
// IP address 127.0.0.1 (-verify_ip).
func TestTLSProcess(t *testing.T) {
	openssl, err := exec.LookPath("openssl")
	if err != nil {
		t.Fatalf("openssl is needed to check the emulator's TLS as a client nobody here wrote: %v (apt-get install openssl)", err)
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	data, logPath := filepath.Join(dir, "data"), filepath.Join(dir, "log")
	p := startProc(t, bin, data, logPath, "--tls", "--tls-san", "emulator.test")
	defer p.stop(t, logPath)
	caPath := filepath.Join(data, "tls", "ca.pem")
	if !strings.HasPrefix(p.url, "https://") || !strings.Contains(p.line, caPath) {
		t.Fatalf("ready line %q: want an https URL and %s", p.line, caPath)
	}
	want, err := os.ReadFile(caPath)
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(p.url, "https://")
	fromDir := runBin(t, bin, nil, "ca", "--data-dir", data)
	fromRoute := runBin(t, bin, []string{"FABRIC_EMULATOR_DATA="}, "ca", "--addr", addr)
	if !bytes.Equal(fromDir, want) || !bytes.Equal(fromRoute, want) {
		t.Fatalf("ca printed %q (data dir) and %q (route), want %q", fromDir, fromRoute, want)
	}
	if tok := runBin(t, bin, []string{"FABRIC_EMULATOR_DATA="}, "token", "--addr", addr); len(bytes.Split(tok, []byte("."))) != 3 {
		t.Fatalf("token over https: %q", tok)
	}
	m := endpointInLine.FindStringSubmatch(p.line)
	if m == nil {
		t.Fatalf("no custom endpoint in %q", p.line)
	}
	for _, target := range []string{addr, m[1]} {
		out := runBin(t, openssl, nil, "s_client", "-connect", target, "-verify_return_error", "-CAfile", caPath, "-verify_ip", "127.0.0.1")
		if !bytes.Contains(out, []byte("Verify return code: 0 (ok)")) {
			t.Fatalf("openssl s_client %s: %s", target, out)
		}
	}
	other := filepath.Join(dir, "other.pem")
	foreign := runBin(t, openssl, nil, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
		"-keyout", filepath.Join(dir, "k"), "-subj", "/CN=another CA", "-days", "1")
	if err := os.WriteFile(other, foreign, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := runBinErr(openssl, "s_client", "-connect", addr, "-verify_return_error", "-CAfile", other); err == nil {
		t.Fatalf("openssl verified the emulator against another CA: %s", out)
	}
}

// runBin runs name with args (stdin empty, env extended by env) and
// returns its stdout; it fails the test on error.
func runBin(t *testing.T, name string, env []string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", filepath.Base(name), strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return out
}

// runBinErr runs name with args and returns its output and error.
func runBinErr(name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, name, args...).CombinedOutput()
}
