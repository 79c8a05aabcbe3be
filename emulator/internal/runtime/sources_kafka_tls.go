package runtime

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/kafkaconfig"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A Kafka-protocol source's tlsSettings (Fabric's TLSSettings) name
// certificates in Azure Key Vault. There is no Key Vault locally: the PEM
// stands in the source's registered connection (caCertificates,
// clientCertificate, clientKey), and tlsSettings decides, as in Fabric,
// whether it is used:
//
//   - trustCACertificate.certificate: the broker's certificate must chain to
//     the connection's caCertificates (without it, to the system's roots);
//   - trustCACertificate.verifyHostname false: the broker's host name is not
//     checked (the chain still is);
//   - clientCertificate.certificate: the connection's clientCertificate and
//     clientKey are presented (mutual TLS). revocationMode is accepted but
//     not applied: no CRL or OCSP responder is reachable locally.
//
// cipherSuites is accepted and not applied (Go's defaults).

// KafkaTLSSettings is what the emulator reads of a source's tlsSettings.
type KafkaTLSSettings struct {
	// TrustCA is trustCACertificate.certificate given.
	TrustCA bool `json:"trustCA,omitempty"`
	// NoVerifyHostname is trustCACertificate.verifyHostname false.
	NoVerifyHostname bool `json:"noVerifyHostname,omitempty"`
	// ClientCert is clientCertificate.certificate given.
	ClientCert bool `json:"clientCert,omitempty"`
}

// TLSSettingsOf reads node n's tlsSettings; nil when it has none. Its error
// names the field at fault (under properties.tlsSettings).
func TLSSettingsOf(n *definition.Node) (*KafkaTLSSettings, error) {
	raw, ok := n.Props["tlsSettings"]
	if !ok || raw == nil {
		return nil, nil
	}
	ts, ok := raw.(map[string]any)
	if !ok {
		return nil, errors.New("tlsSettings: want an object")
	}
	var out KafkaTLSSettings
	if tc, ok := ts["trustCACertificate"].(map[string]any); ok {
		vh, ok := tc["verifyHostname"].(bool)
		if !ok {
			return nil, errors.New("tlsSettings.trustCACertificate.verifyHostname: required, true or false")
		}
		out.NoVerifyHostname = !vh
		if err := checkCertificate(tc, "tlsSettings.trustCACertificate.certificate"); err != nil {
			return nil, err
		}
		_, out.TrustCA = tc["certificate"].(map[string]any)
	} else if ts["trustCACertificate"] != nil {
		return nil, errors.New("tlsSettings.trustCACertificate: want an object")
	}
	if cc, ok := ts["clientCertificate"].(map[string]any); ok {
		if err := checkCertificate(cc, "tlsSettings.clientCertificate.certificate"); err != nil {
			return nil, err
		}
		_, out.ClientCert = cc["certificate"].(map[string]any)
		switch m, _ := cc["revocationMode"].(string); m {
		case "", "Off", "CRL", "OCSP", "CRLAndOCSP":
		default:
			return nil, fmt.Errorf("tlsSettings.clientCertificate.revocationMode: %q is not Off, CRL, OCSP or CRLAndOCSP", m)
		}
	} else if ts["clientCertificate"] != nil {
		return nil, errors.New("tlsSettings.clientCertificate: want an object")
	}
	return &out, nil
}

// checkCertificate checks a CertificateResource: type KeyVault with its
// resource id and certificate name.
func checkCertificate(parent map[string]any, field string) error {
	raw, ok := parent["certificate"]
	if !ok || raw == nil {
		return nil
	}
	c, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: want an object", field)
	}
	if t, _ := c["type"].(string); !strings.EqualFold(t, "KeyVault") {
		return fmt.Errorf("%s.type: %q is not KeyVault", field, t)
	}
	for _, k := range []string{"azureKeyVaultResourceId", "certificateName"} {
		if s, _ := c[k].(string); strings.TrimSpace(s) == "" {
			return fmt.Errorf("%s.%s: required", field, k)
		}
	}
	return nil
}

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
