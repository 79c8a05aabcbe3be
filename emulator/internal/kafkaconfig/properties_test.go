package kafkaconfig

import (
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	path := writeFile(t, "client.properties", `# a client.properties as Java clients read it
security.protocol=SASL_SSL
sasl.mechanism : SCRAM-SHA-512
! another comment
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
    username="bob" \
    password="${not-expanded}";
ssl.endpoint.identification.algorithm=
`)
	p, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if p["security.protocol"] != "SASL_SSL" || p["sasl.mechanism"] != "SCRAM-SHA-512" {
		t.Fatalf("got %v", p)
	}
	c := mustParse(t, p)
	if c.Username != "bob" || c.Password != "${not-expanded}" || !c.NoHostnameCheck {
		t.Fatalf("got %q %q %v", c.Username, c.Password, c.NoHostnameCheck)
	}
	if _, err := ReadFile(t.TempDir() + "/nonexistent.properties"); err == nil || !strings.Contains(err.Error(), "read kafka config") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestEnvMapping(t *testing.T) {
	for name, key := range map[string]string{
		"FABRIC_KAFKA_CONFIG_SECURITY_PROTOCOL":                      "security.protocol",
		"FABRIC_KAFKA_CONFIG_SASL_JAAS_CONFIG":                       "sasl.jaas.config",
		"FABRIC_KAFKA_CONFIG_SSL_KEYSTORE_CERTIFICATE_CHAIN":         "ssl.keystore.certificate.chain",
		"FABRIC_KAFKA_CONFIG_FABRICTEST_SHARE_CREDENTIALS":           "fabrictest.share.credentials",
		"FABRIC_KAFKA_CONFIG_LISTENER_NAME_X_SCRAM___SHA___512_A__B": "listener.name.x.scram-sha-512.a_b",
	} {
		if got := EnvKey(name); got != key {
			t.Errorf("EnvKey(%s) = %s, want %s", name, got, key)
		}
		if got := EnvName(key); got != name {
			t.Errorf("EnvName(%s) = %s, want %s", key, got, name)
		}
	}
	p := FromEnv([]string{"FABRIC_KAFKA_CONFIG_SECURITY_PROTOCOL=SSL", "FABRIC_KAFKA_CONFIG=/x", "FABRIC_KAFKA_CONFIG_=y",
		"KAFKA_SECURITY_PROTOCOL=SASL_SSL", "FABRIC_KAFKA_CONFIG_SASL_JAAS_CONFIG=a=b;"})
	if len(p) != 2 || p["security.protocol"] != "SSL" || p["sasl.jaas.config"] != "a=b;" {
		t.Fatalf("got %v", p)
	}
	merged := Merge(Properties{"security.protocol": "PLAINTEXT", "client.id": "c"}, p)
	if merged["security.protocol"] != "SSL" || merged["client.id"] != "c" {
		t.Fatalf("the environment wins over the file: %v", merged)
	}
}
