package runtime

import (
	"errors"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/kafkaconfig"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A source's tlsSettings are decoded with its definition
// (eventstream.TLSSettingsOf); this file applies them to a connection.

// KafkaTLSSettings is what the emulator reads of a source's tlsSettings.
type KafkaTLSSettings = eventstream.TLSSettings

// ConnectionTLSProperties are the ssl.* client properties of connection c
// for a source with tlsSettings ts under protocol proto (SSL or SASL_SSL);
// the error names what the connection lacks.
func ConnectionTLSProperties(ts *KafkaTLSSettings, c KafkaConnection) (kafkaconfig.Properties, error) {
	p := kafkaconfig.Properties{"security.protocol": kafkaconfig.SSL}
	if ts == nil {
		return p, nil
	}
	if ts.TrustCA {
		if c.CACertificates == "" {
			return nil, errors.New("tlsSettings.trustCACertificate names a Key Vault certificate; register its PEM with the connection as caCertificates (there is no Key Vault locally)")
		}
		p["ssl.truststore.type"], p["ssl.truststore.certificates"] = "PEM", c.CACertificates
	}
	if ts.NoVerifyHostname {
		p["ssl.endpoint.identification.algorithm"] = ""
	}
	if ts.ClientCert {
		if c.ClientCertificate == "" || c.ClientKey == "" {
			return nil, errors.New("tlsSettings.clientCertificate names a Key Vault certificate; register its PEM with the connection as clientCertificate and clientKey (there is no Key Vault locally)")
		}
		p["ssl.keystore.type"] = "PEM"
		p["ssl.keystore.certificate.chain"], p["ssl.keystore.key"] = c.ClientCertificate, c.ClientKey
	}
	return p, nil
}

// kafkaTLSOpt is the TLS dial option of a source under SSL or SASL_SSL.
func kafkaTLSOpt(k KafkaSourceProps, c KafkaConnection) (kgo.Opt, error) {
	p, err := ConnectionTLSProperties(k.TLS, c)
	if err != nil {
		return nil, err
	}
	cfg, err := kafkaconfig.Parse(p)
	if err != nil {
		return nil, err
	}
	return kgo.DialTLSConfig(cfg.TLS), nil
}
