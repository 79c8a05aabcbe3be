package main

import (
	"flag"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/fabrictest/fabrictest/emulator"
)

// tlsFlags are serve's TLS flags.
type tlsFlags struct {
	on        *bool
	sans      *listFlag
	cert, key *string
}

// listFlag is a repeatable flag; a comma-separated value adds several.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

// Set implements flag.Value.
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// addTLSFlags declares --tls, --tls-san, --tls-cert and --tls-key on fs.
func addTLSFlags(fs *flag.FlagSet) tlsFlags {
	sans := &listFlag{}
	_ = sans.Set(os.Getenv("FABRIC_EMULATOR_TLS_SAN"))
	f := tlsFlags{
		on:   fs.Bool("tls", os.Getenv("FABRIC_EMULATOR_TLS") == "true", "serve the API over HTTPS and the custom endpoint as SASL_SSL, with a certificate signed by a CA made once and kept in <data-dir>/tls/ca.pem (FABRIC_EMULATOR_TLS=true)"),
		sans: sans,
		cert: fs.String("tls-cert", env("FABRIC_EMULATOR_TLS_CERT", ""), "PEM certificate (chain) of your own for TLS, instead of the emulator's CA; implies --tls (FABRIC_EMULATOR_TLS_CERT)"),
		key:  fs.String("tls-key", env("FABRIC_EMULATOR_TLS_KEY", ""), "PEM private key of --tls-cert (FABRIC_EMULATOR_TLS_KEY)"),
	}
	fs.Var(sans, "tls-san", "extra host name or IP address of the TLS certificate besides localhost, 127.0.0.1, ::1 and the advertised hosts; repeatable (FABRIC_EMULATOR_TLS_SAN, comma-separated)")
	return f
}

// options turns the flags into emulator options; addr's host, unless a
// wildcard, is a name of the certificate too.
func (f tlsFlags) options(addr string) []emulator.Option {
	if *f.cert != "" || *f.key != "" {
		return []emulator.Option{emulator.WithTLSCertificate(*f.cert, *f.key)}
	}
	if !*f.on {
		return nil
	}
	names := append([]string(nil), (*f.sans)...)
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" {
		if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
			names = append(names, host)
		}
	}
	return []emulator.Option{emulator.WithTLS(names...)}
}

// tlsDesc ends the ready line: where the CA is, with TLS on.
func tlsDesc(srv *emulator.Server, dataDir string) string {
	switch {
	case !srv.TLS():
		return ""
	case srv.CACertificate() == nil:
		return ", tls: your certificate"
	case dataDir != "":
		return ", tls CA: " + filepath.Join(dataDir, emulator.TLSDir, "ca.pem")
	}
	return ", tls CA: fabric-emulator ca"
}
