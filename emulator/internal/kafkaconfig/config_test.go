package kafkaconfig

import (
	"crypto/tls"
	"strings"
	"testing"
)

func mustParse(t *testing.T, p Properties) Config {
	t.Helper()
	c, err := Parse(p)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return c
}

func TestParseEmptyIsPlaintext(t *testing.T) {
	c := mustParse(t, Properties{})
	if c.SecurityProtocol != Plaintext || c.Secured() || c.TLS != nil || c.Mechanism() != nil || len(c.Opts()) != 0 {
		t.Fatalf("empty config: %+v", c)
	}
	if c.NotebookProperties() != nil {
		t.Fatal("PLAINTEXT hands notebooks nothing")
	}
}

func TestParseBootstrapAndClientID(t *testing.T) {
	c := mustParse(t, Properties{"bootstrap.servers": " a:9092, b:9093 ,", "client.id": "me"})
	if strings.Join(c.Bootstrap, ",") != "a:9092,b:9093" || c.ClientID != "me" || len(c.Opts()) != 1 {
		t.Fatalf("got %+v", c)
	}
	if _, err := Parse(Properties{"bootstrap.servers": "a"}); err == nil || !strings.Contains(err.Error(), "bootstrap.servers") {
		t.Fatalf("bad bootstrap: %v", err)
	}
}

func TestParseSecurityProtocols(t *testing.T) {
	for _, proto := range []string{"PLAINTEXT", "ssl", "SASL_PLAINTEXT", "sasl_ssl"} {
		p := Properties{"security.protocol": proto}
		if strings.HasPrefix(strings.ToUpper(proto), "SASL") {
			p["sasl.jaas.config"] = plainJAAS
		}
		c := mustParse(t, p)
		if c.SecurityProtocol != strings.ToUpper(proto) {
			t.Errorf("%s: got %s", proto, c.SecurityProtocol)
		}
		if hasTLS := c.TLS != nil; hasTLS != strings.HasSuffix(c.SecurityProtocol, "SSL") {
			t.Errorf("%s: TLS %v", proto, hasTLS)
		}
		if c.TLS != nil && (c.TLS.MinVersion != tls.VersionTLS12 || c.TLS.RootCAs != nil) {
			t.Errorf("%s: default TLS: %+v", proto, c.TLS)
		}
	}
}

func TestParseSASLMechanisms(t *testing.T) {
	for mech, jaas := range map[string]string{"": plainJAAS, "PLAIN": plainJAAS, "SCRAM-SHA-256": scramJAAS, "scram-sha-512": scramJAAS} {
		p := Properties{"security.protocol": "SASL_PLAINTEXT", "sasl.jaas.config": jaas}
		if mech != "" {
			p["sasl.mechanism"] = mech
		}
		c := mustParse(t, p)
		want := strings.ToUpper(mech)
		if want == "" {
			want = PLAIN
		}
		if c.SASLMechanism != want || c.Mechanism() == nil || c.Mechanism().Name() != want {
			t.Errorf("%q: got %s", mech, c.SASLMechanism)
		}
	}
}

func TestParseJAASCredentials(t *testing.T) {
	c := mustParse(t, Properties{"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512", "sasl.jaas.config": scramJAAS})
	if c.Username != "bob" || c.Password != `p"w` || c.JAAS != scramJAAS {
		t.Fatalf("got %q %q", c.Username, c.Password)
	}
	// Shaded class names (Databricks' kafkashaded.…) and bare values are Kafka's too.
	c = mustParse(t, Properties{"security.protocol": "SASL_PLAINTEXT",
		"sasl.jaas.config": "kafkashaded.org.apache.kafka.common.security.plain.PlainLoginModule required\n username=carol password=x;"})
	if c.Username != "carol" || c.Password != "x" {
		t.Fatalf("got %q %q", c.Username, c.Password)
	}
}

func TestParseShare(t *testing.T) {
	for v, want := range map[string]bool{"true": true, "TRUE": true, "false": false, "": false} {
		if c := mustParse(t, Properties{ShareKey: v}); c.Share != want {
			t.Errorf("%q: %v", v, c.Share)
		}
	}
	if _, err := Parse(Properties{ShareKey: "yes"}); err == nil || !strings.Contains(err.Error(), ShareKey) {
		t.Fatalf("bad share flag: %v", err)
	}
}
