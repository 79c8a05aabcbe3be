package portal

import (
	"github.com/fabrictest/fabrictest/emulator/wire"
	"net"
	"net/http"
	"net/url"
)

// admit lets in loopback callers (any caller with Config.Remote) whose Host
// names a loopback address, and POSTs from the portal's own pages.
func (p *Portal) admit(r *http.Request) error {
	if !p.cfg.Remote {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			return newAPIError(http.StatusForbidden, wire.Forbidden, "the portal answers loopback callers only (start the emulator with --remote-tokens to open it)")
		}
		if !loopbackHost(r.Host) {
			// A page of another site that resolved its own name to
			// 127.0.0.1 (DNS rebinding) reaches us with its Host.
			return newAPIError(http.StatusForbidden, wire.Forbidden, "the portal answers requests for a loopback host only, not %q", r.Host)
		}
	}
	if r.Method == http.MethodPost && !sameOrigin(r) {
		return newAPIError(http.StatusForbidden, wire.Forbidden, "a portal action must come from a portal page (Origin or Sec-Fetch-Site)")
	}
	return nil
}

// loopbackHost reports whether a Host header names localhost or a loopback IP.
func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether a POST comes from a page of this host: the
// browser's Sec-Fetch-Site says so, or its Origin is this host. A client
// that sends neither (curl) is not a browser another site can drive.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
		return true
	case "":
	default:
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host == r.Host
}

// setSecurityHeaders keeps every page to its own origin: its script and
// style only, no frames, no referrer.
func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
}
