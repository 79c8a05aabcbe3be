package kafkaconfig

import (
	"crypto/tls"
	"fmt"
	"strings"
)

// The security protocols and SASL mechanisms the emulator's clients speak.
const (
	Plaintext     = "PLAINTEXT"
	SSL           = "SSL"
	SASLPlaintext = "SASL_PLAINTEXT"
	SASLSSL       = "SASL_SSL"

	PLAIN       = "PLAIN"
	ScramSHA256 = "SCRAM-SHA-256"
	ScramSHA512 = "SCRAM-SHA-512"
	GSSAPI      = "GSSAPI"
)

// ShareKey is the emulator's own key that lets the resolve route hand
// notebooks the SASL credentials and the client certificate and key.
const ShareKey = "fabrictest.share.credentials"

// Config is a parsed set of client properties.
type Config struct {
	// Bootstrap is bootstrap.servers, split; empty when not given.
	Bootstrap []string
	// SecurityProtocol is one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL.
	SecurityProtocol string
	// SASLMechanism is PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or GSSAPI under
	// SASL_*, empty otherwise.
	SASLMechanism string
	// Username and Password come from sasl.jaas.config (PLAIN and SCRAM).
	Username, Password string
	// Kerberos is the GSSAPI login (keytab, principal, krb5.conf); nil
	// for other mechanisms.
	Kerberos *Kerberos
	// JAAS is sasl.jaas.config as given.
	JAAS string
	// TLS is the client TLS configuration under SSL and SASL_SSL, nil otherwise.
	TLS *tls.Config
	// CAPEM holds the trust store's certificates (PEM); empty: the system's.
	CAPEM string
	// CertPEM and KeyPEM are the client certificate chain and key; empty
	// when the client presents none.
	CertPEM, KeyPEM string
	// NoHostnameCheck is ssl.endpoint.identification.algorithm set empty.
	NoHostnameCheck bool
	// ClientID is client.id; empty leaves the emulator's.
	ClientID string
	// Share is fabrictest.share.credentials=true.
	Share bool
}

// Secured reports whether the cluster is reached with TLS or SASL.
func (c Config) Secured() bool {
	return c.SecurityProtocol != "" && c.SecurityProtocol != Plaintext
}

// Parse checks p and builds its Config. Every error names the key at fault.
func Parse(p Properties) (Config, error) {
	c := Config{SecurityProtocol: Plaintext}
	for _, k := range p.keys() {
		if err := known(k, p[k]); err != nil {
			return Config{}, err
		}
	}
	for _, step := range []func(*Config, Properties) error{parseBasics, parseSASL, parseTLS} {
		if err := step(&c, p); err != nil {
			return Config{}, err
		}
	}
	return c, nil
}

// keyErr names key in an error.
func keyErr(key, format string, args ...any) error {
	return fmt.Errorf("kafka config %s: "+format, append([]any{key}, args...)...)
}

// parseBasics reads bootstrap.servers, security.protocol, client.id and the
// share flag.
func parseBasics(c *Config, p Properties) error {
	for _, h := range strings.Split(p["bootstrap.servers"], ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if i := strings.LastIndex(h, ":"); i <= 0 || i == len(h)-1 {
			return keyErr("bootstrap.servers", "%q is not host:port", h)
		}
		c.Bootstrap = append(c.Bootstrap, h)
	}
	if v, ok := p["security.protocol"]; ok {
		proto := strings.ToUpper(strings.TrimSpace(v))
		switch proto {
		case Plaintext, SSL, SASLPlaintext, SASLSSL:
			c.SecurityProtocol = proto
		default:
			return keyErr("security.protocol", "%q is not PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", v)
		}
	}
	c.ClientID = strings.TrimSpace(p["client.id"])
	if v, ok := p[ShareKey]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			c.Share = true
		case "false", "":
		default:
			return keyErr(ShareKey, "%q is not true or false", v)
		}
	}
	return nil
}
