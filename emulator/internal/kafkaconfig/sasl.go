package kafkaconfig

import "strings"

// parseSASL reads sasl.mechanism and sasl.jaas.config. They are required
// under SASL_* (the mechanism defaulting to PLAIN, as in Kafka) and refused
// under PLAINTEXT and SSL, where a Java client would ignore them.
func parseSASL(c *Config, p Properties) error {
	mech, hasMech := p["sasl.mechanism"]
	jaas, hasJAAS := p["sasl.jaas.config"]
	if !strings.HasPrefix(c.SecurityProtocol, "SASL_") {
		for key, has := range map[string]bool{"sasl.mechanism": hasMech, "sasl.jaas.config": hasJAAS} {
			if has {
				return keyErr(key, "is set but security.protocol is %s; use SASL_PLAINTEXT or SASL_SSL", c.SecurityProtocol)
			}
		}
		return nil
	}
	c.SASLMechanism = strings.ToUpper(strings.TrimSpace(mech))
	switch c.SASLMechanism {
	case "":
		c.SASLMechanism = PLAIN
	case PLAIN, ScramSHA256, ScramSHA512:
	case "GSSAPI":
		return keyErr("sasl.mechanism", "GSSAPI (Kerberos) is not supported; use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	case "OAUTHBEARER":
		return keyErr("sasl.mechanism", "OAUTHBEARER is not supported; use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	default:
		return keyErr("sasl.mechanism", "%q is not PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", mech)
	}
	if strings.TrimSpace(jaas) == "" {
		return keyErr("sasl.jaas.config", "required with security.protocol %s: a %s line with username and password", c.SecurityProtocol, wantModule(c.SASLMechanism))
	}
	return parseCredentials(c, jaas)
}

// parseCredentials reads the user name and password of a JAAS line whose
// login module fits the mechanism.
func parseCredentials(c *Config, jaas string) error {
	e, err := parseJAAS(jaas)
	if err != nil {
		return keyErr("sasl.jaas.config", "%v", err)
	}
	want := "plain"
	if strings.HasPrefix(c.SASLMechanism, "SCRAM-") {
		want = "scram"
	}
	switch kind := moduleKind(e.module); {
	case kind == "kerberos":
		return keyErr("sasl.jaas.config", "Krb5LoginModule (Kerberos) is not supported")
	case kind == "oauthbearer":
		return keyErr("sasl.jaas.config", "OAuthBearerLoginModule is not supported")
	case kind != want:
		return keyErr("sasl.jaas.config", "login module %s does not fit sasl.mechanism %s; want %s", e.module, c.SASLMechanism, wantModule(c.SASLMechanism))
	}
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

// wantModule names the login module of mechanism.
func wantModule(mech string) string {
	if strings.HasPrefix(mech, "SCRAM-") {
		return "org.apache.kafka.common.security.scram.ScramLoginModule"
	}
	return "org.apache.kafka.common.security.plain.PlainLoginModule"
}
