package kafkaconfig

// NotebookProperties are the Kafka client properties a notebook sets to
// reach the cluster as the emulator does (the resolve route's
// kafkaProperties; the Spark adapter prefixes them with "kafka."). The
// protocol, the mechanism, the Kerberos service name and the trust store's
// certificates, which are not secrets, are always there; the SASL
// credentials (sasl.jaas.config: a password, or the keytab file and
// principal under GSSAPI) and the client certificate and key only when the
// user marked them shareable with fabrictest.share.credentials=true. Nil
// for PLAINTEXT.
func (c Config) NotebookProperties() map[string]string {
	if !c.Secured() {
		return nil
	}
	out := map[string]string{"security.protocol": c.SecurityProtocol}
	if c.SASLMechanism != "" {
		out["sasl.mechanism"] = c.SASLMechanism
	}
	if c.Kerberos != nil {
		out[serviceNameKey] = c.Kerberos.ServiceName
	}
	if c.CAPEM != "" {
		out["ssl.truststore.type"] = "PEM"
		out["ssl.truststore.certificates"] = pemOnly(c.CAPEM, "CERTIFICATE")
	}
	if c.NoHostnameCheck {
		out["ssl.endpoint.identification.algorithm"] = ""
	}
	if !c.Share {
		return out
	}
	if c.JAAS != "" {
		out["sasl.jaas.config"] = c.JAAS
	}
	if c.CertPEM != "" {
		out["ssl.keystore.type"] = "PEM"
		out["ssl.keystore.certificate.chain"] = c.CertPEM
		out["ssl.keystore.key"] = c.KeyPEM
	}
	return out
}
