package kafkaconfig

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
)

// login logs in to the KDC as k's principal and asks it for a ticket to
// the broker's service on each seed's host, as a GSSAPI connection to that
// seed would, so that a KDC out of reach or a principal it does not know is
// named before any broker is asked.
func (k *Kerberos) login(seeds []string) error {
	cl := k.client()
	defer cl.Destroy()
	if err := cl.Login(); err != nil {
		return k.explain(err, "")
	}
	for _, h := range seedHosts(seeds) {
		h = principalHost(context.Background(), h)
		if _, _, err := cl.GetServiceTicket(k.ServiceName + "/" + h); err != nil {
			return k.explain(err, h)
		}
	}
	return nil
}

// seedHosts are the distinct host names of seeds (host:port).
func seedHosts(seeds []string) []string {
	var hosts []string
	for _, s := range seeds {
		h, _, err := net.SplitHostPort(s)
		if err != nil {
			h = s
		}
		if !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// kerberosErr reports whether err came from a Kerberos exchange (gokrb5
// flattens its errors into text, so the text is what tells).
func kerberosErr(err error) bool {
	s := err.Error()
	return strings.Contains(s, "KRB Error") || strings.Contains(s, "KDC") || strings.Contains(s, "TGT")
}

// explain wraps a failed Kerberos exchange's error with its likely cause,
// naming the setting to look at. host is the broker host whose service
// ticket was asked for ("" when not known).
func (k *Kerberos) explain(err error, host string) error {
	if host == "" {
		host = "<broker host>"
	}
	who := fmt.Sprintf("kerberos login as %s", k.Name())
	s := err.Error()
	switch {
	case strings.Contains(s, "KDC_ERR_C_PRINCIPAL_UNKNOWN"):
		return fmt.Errorf("%s: the KDC of realm %s does not know the principal (client not found in Kerberos database); check principal in sasl.jaas.config: %w", who, k.Realm, err)
	case strings.Contains(s, "KDC_ERR_S_PRINCIPAL_UNKNOWN"):
		return fmt.Errorf("%s: the KDC of realm %s does not know the broker's service principal %s/%s@%s (server not found in Kerberos database); check %s (or serviceName in sasl.jaas.config) and that the broker's host name is the one in its principal: %w",
			who, k.Realm, k.ServiceName, host, k.Realm, serviceNameKey, err)
	case strings.Contains(s, "KDC_ERR_PREAUTH_FAILED") || strings.Contains(s, "KRB_AP_ERR_BAD_INTEGRITY") || strings.Contains(s, "keytab incorrect"):
		return fmt.Errorf("%s: the KDC of realm %s refused the key in keyTab %s (an old key version? export the keytab again): %w", who, k.Realm, k.Keytab, err)
	case strings.Contains(s, "KDC_ERR_ETYPE_NOSUPP"):
		return fmt.Errorf("%s: the KDC of realm %s takes none of the key types in keyTab %s: %w", who, k.Realm, k.Keytab, err)
	case strings.Contains(s, "KRB_AP_ERR_SKEW"):
		return fmt.Errorf("%s: this machine's clock and the KDC's differ by more than krb5.conf's clockskew: %w", who, err)
	case strings.Contains(s, "communicat") || strings.Contains(s, "error sending to a KDC") || strings.Contains(s, "no KDC"):
		return fmt.Errorf("%s: the KDC of realm %s cannot be reached at %s (kdc in %s): %w", who, k.Realm, k.kdcList(), k.Krb5Conf, err)
	}
	return fmt.Errorf("%s: %w", who, err)
}

// kdcList names k's KDCs for an error.
func (k *Kerberos) kdcList() string {
	if kdcs := k.KDCs(); len(kdcs) > 0 {
		return strings.Join(kdcs, ", ")
	}
	return "the KDCs of its DNS SRV records"
}
