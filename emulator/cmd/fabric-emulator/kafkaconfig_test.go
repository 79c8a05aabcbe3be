package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --kafka-config and the FABRIC_KAFKA_CONFIG_* variables reach the
// emulator: an unsupported key in either fails serve naming it, the
// variable winning over the file.
func TestServeKafkaConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(path, []byte("security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--addr", "127.0.0.1:0", "--kafka", "127.0.0.1:1", "--kafka-endpoint", "off", "--kafka-config", path}
	err := serve(args, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "kafka config sasl.jaas.config: required with security.protocol SASL_SSL: a com.sun.security.auth.module.Krb5LoginModule line") {
		t.Fatalf("file: %v", err)
	}
	t.Setenv("FABRIC_KAFKA_CONFIG_SASL_MECHANISM", "OAUTHBEARER")
	err = serve(args, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "kafka config sasl.mechanism: OAUTHBEARER is not supported") {
		t.Fatalf("environment over the file: %v", err)
	}
	t.Setenv("FABRIC_KAFKA_CONFIG", path)
	err = serve([]string{"--addr", "127.0.0.1:0", "--kafka", "127.0.0.1:1", "--kafka-endpoint", "off"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "OAUTHBEARER") {
		t.Fatalf("FABRIC_KAFKA_CONFIG names the file: %v", err)
	}
}
