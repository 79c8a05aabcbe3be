package eventstream

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
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

// TLSSettings is what the emulator reads of a source's tlsSettings.
type TLSSettings struct {
	// TrustCA is trustCACertificate.certificate given.
	TrustCA bool `json:"trustCA,omitempty"`
	// NoVerifyHostname is trustCACertificate.verifyHostname false.
	NoVerifyHostname bool `json:"noVerifyHostname,omitempty"`
	// ClientCert is clientCertificate.certificate given.
	ClientCert bool `json:"clientCert,omitempty"`
}

// TLSSettingsOf reads node n's tlsSettings; nil when it has none. Its error
// names the field at fault (under properties.tlsSettings).
func TLSSettingsOf(n *definition.Node) (*TLSSettings, error) {
	raw, ok := n.Props["tlsSettings"]
	if !ok || raw == nil {
		return nil, nil
	}
	ts, ok := raw.(map[string]any)
	if !ok {
		return nil, errors.New("tlsSettings: want an object")
	}
	var out TLSSettings
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
