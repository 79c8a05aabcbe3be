package kafkaconfig

import "strings"

// serviceNameKey is the GSSAPI key naming the broker's Kerberos service.
const serviceNameKey = "sasl.kerberos.service.name"

// parseSASL reads sasl.mechanism, sasl.jaas.config and
// sasl.kerberos.service.name. They are required under SASL_* (the mechanism
// defaulting to PLAIN, as in Kafka) and refused under PLAINTEXT and SSL,
// where a Java client would ignore them.
func parseSASL(c *Config, p Properties) error {
	if !strings.HasPrefix(c.SecurityProtocol, "SASL_") {
		for _, key := range []string{"sasl.mechanism", "sasl.jaas.config", serviceNameKey} {
			if _, has := p[key]; has {
				return keyErr(key, "is set but security.protocol is %s; use SASL_PLAINTEXT or SASL_SSL", c.SecurityProtocol)
			}
		}
		return nil
	}
	mech, jaas := p["sasl.mechanism"], p["sasl.jaas.config"]
	_, hasService := p[serviceNameKey]
	c.SASLMechanism = strings.ToUpper(strings.TrimSpace(mech))
	switch c.SASLMechanism {
	case "":
		c.SASLMechanism = PLAIN
	case PLAIN, ScramSHA256, ScramSHA512, GSSAPI:
	case "OAUTHBEARER":
		return keyErr("sasl.mechanism", "OAUTHBEARER is not supported; use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or GSSAPI")
	default:
		return keyErr("sasl.mechanism", "%q is not PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or GSSAPI", mech)
	}
	if hasService && c.SASLMechanism != GSSAPI {
		return keyErr(serviceNameKey, "is set but sasl.mechanism is %s; it is a GSSAPI (Kerberos) key", c.SASLMechanism)
	}
	if strings.TrimSpace(jaas) == "" {
		return keyErr("sasl.jaas.config", "required with security.protocol %s: %s", c.SecurityProtocol, wantLine(c.SASLMechanism))
	}
	e, err := parseJAAS(jaas)
	if err != nil {
		return keyErr("sasl.jaas.config", "%v", err)
	}
	if kind, want := moduleKind(e.module), mechanismModule(c.SASLMechanism); kind != want {
		if kind == "oauthbearer" {
			return keyErr("sasl.jaas.config", "OAuthBearerLoginModule is not supported")
		}
		return keyErr("sasl.jaas.config", "login module %s does not fit sasl.mechanism %s; want %s", e.module, c.SASLMechanism, wantModule(c.SASLMechanism))
	}
	if c.SASLMechanism == GSSAPI {
		return parseGSSAPI(c, p, e, jaas)
	}
	return parseCredentials(c, e, jaas)
}

// parseCredentials reads the user name and password of a PLAIN or SCRAM
// JAAS line.
func parseCredentials(c *Config, e jaasEntry, jaas string) error {
	for k := range e.options {
		if k != "username" && k != "password" {
			return keyErr("sasl.jaas.config", "option %q is not supported (only username and password)", k)
		}
	}
	user, hasUser := e.options["username"]
	pass, hasPass := e.options["password"]
	if !hasUser || user == "" || !hasPass {
		return keyErr("sasl.jaas.config", "want username=\"…\" and password=\"…\"")
	}
	c.Username, c.Password, c.JAAS = user, pass, jaas
	return nil
}

// mechanismModule is the moduleKind a mechanism's JAAS line must have.
func mechanismModule(mech string) string {
	switch {
	case mech == GSSAPI:
		return "kerberos"
	case strings.HasPrefix(mech, "SCRAM-"):
		return "scram"
	}
	return "plain"
}

// wantModule names the login module of mechanism.
func wantModule(mech string) string {
	switch mechanismModule(mech) {
	case "kerberos":
		return "com.sun.security.auth.module.Krb5LoginModule"
	case "scram":
		return "org.apache.kafka.common.security.scram.ScramLoginModule"
	}
	return "org.apache.kafka.common.security.plain.PlainLoginModule"
}

// wantLine says what a mechanism's JAAS line holds.
func wantLine(mech string) string {
	if mech == GSSAPI {
		return `a ` + wantModule(mech) + ` line with useKeyTab=true keyTab="…" principal="…"`
	}
	return "a " + wantModule(mech) + " line with username and password"
}
