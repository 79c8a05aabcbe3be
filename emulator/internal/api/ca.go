package api

import (
	"net"
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
)

// TLSCANotAvailable answers GET /_emulator/ca.pem when the emulator has no
// CA of its own to give: TLS is off, or the certificate is the user's.
const TLSCANotAvailable = "TlsCaNotAvailable"

// caCertificate serves GET /_emulator/ca.pem: the PEM of the CA that signed
// the emulator's TLS certificate, to loopback callers (any caller with
// RemoteTokens, as the token route).
func (a emulatorHandlers) caCertificate(c *call) error {
	host, _, err := net.SplitHostPort(c.r.RemoteAddr)
	if ip := net.ParseIP(host); !a.cfg.RemoteTokens && (err != nil || ip == nil || !ip.IsLoopback()) {
		return fabricerr.New(http.StatusForbidden, fabricerr.Forbidden, "the CA certificate is served to loopback callers only; read it from the data dir (tls/ca.pem) or run `fabric-emulator ca` on the emulator's host")
	}
	switch {
	case !a.cfg.TLS:
		return fabricerr.New(http.StatusNotFound, TLSCANotAvailable, "the emulator serves plain HTTP and SASL_PLAINTEXT, so it has no CA; start it with --tls (FABRIC_EMULATOR_TLS=true)")
	case a.cfg.CACertificate == nil:
		return fabricerr.New(http.StatusNotFound, TLSCANotAvailable, "the emulator's certificate is your own (--tls-cert), so its CA is yours too")
	}
	c.w.Header().Set("Content-Type", "application/x-pem-file")
	c.w.WriteHeader(http.StatusOK)
	_, err = c.w.Write(a.cfg.CACertificate)
	return err
}
