package tlsca

import (
	"crypto/x509"
	"fmt"
	"net"
	"slices"
	"strings"
)

// normalize lowercases DNS names, writes IP addresses in their canonical
// form, drops duplicates and sorts the rest after localhost, 127.0.0.1
// and ::1 (the first is the certificate's common name).
func normalize(in []string) ([]string, error) {
	var out []string
	for _, n := range in {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if ip := net.ParseIP(strings.Trim(n, "[]")); ip != nil {
			n = ip.String()
		} else if err := checkDNSName(n); err != nil {
			return nil, err
		} else {
			n = strings.ToLower(strings.TrimSuffix(n, "."))
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	head := min(len(DefaultNames), len(out))
	slices.Sort(out[head:])
	return out, nil
}

// checkDNSName refuses what cannot be a DNS subject alternative name.
func checkDNSName(n string) error {
	if strings.Contains(n, ":") {
		return fmt.Errorf("tls name %q: want a host name or an IP address, without a port", n)
	}
	for _, r := range n {
		if !(r == '-' || r == '.' || r == '*' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return fmt.Errorf("tls name %q: a host name has letters, digits, '-' and '.' only", n)
		}
	}
	return nil
}

// sans lists a certificate's DNS names and IP addresses as normalize does.
func sans(c *x509.Certificate) []string {
	out := append([]string(nil), c.DNSNames...)
	for _, ip := range c.IPAddresses {
		out = append(out, ip.String())
	}
	return out
}

// equal reports whether two name lists hold the same names.
func equal(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
