package emulator

import (
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
)

// The API's listener. net/http handles TLS itself only on a *tls.Conn, and
// envelopeConn must see the plaintext to rewrite net/http's own error
// answers, so with TLS on the listener hands net/http a wrapper that does
// the handshake (on net/http's first call, ConnectionState, which also
// fills Request.TLS) and logs a failed one in one line, through the
// emulator's logger rather than net/http's error log.

// apiListener accepts the API's connections: plain, or TLS when tls is set.
type apiListener struct {
	net.Listener
	tls     *tls.Config
	log     *slog.Logger
	timeout time.Duration // bounds a TLS handshake
}

// Accept implements net.Listener.
func (l apiListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if l.tls == nil {
		return envelopeConn{Conn: &plainConn{Conn: c, log: l.log}}, nil
	}
	h := &handshakeConn{Conn: tls.Server(c, l.tls), raw: c, log: l.log, timeout: l.timeout}
	return tlsEnvelopeConn{envelopeConn{Conn: h}, h}, nil
}

// tlsEnvelopeConn is an envelopeConn over TLS; net/http reads its
// ConnectionState into Request.TLS.
type tlsEnvelopeConn struct {
	envelopeConn
	h *handshakeConn
}

// ConnectionState does the handshake and returns its state.
func (c tlsEnvelopeConn) ConnectionState() tls.ConnectionState { return c.h.state() }

// handshakeConn is a server-side TLS connection that handshakes once,
// before its first read, and refuses every read after a failed one with
// an error net/http closes the connection on without a word.
type handshakeConn struct {
	*tls.Conn
	raw     net.Conn
	log     *slog.Logger
	timeout time.Duration
	once    sync.Once
	err     error
}

func (c *handshakeConn) state() tls.ConnectionState {
	c.once.Do(func() { c.err = c.handshake() })
	return c.Conn.ConnectionState()
}

// Read implements net.Conn.
func (c *handshakeConn) Read(p []byte) (int, error) {
	c.once.Do(func() { c.err = c.handshake() })
	if c.err != nil {
		return 0, c.err
	}
	return c.Conn.Read(p)
}

// handshake runs the TLS handshake within the timeout, logging a failure.
func (c *handshakeConn) handshake() error {
	if c.timeout > 0 {
		_ = c.raw.SetDeadline(time.Now().Add(c.timeout))
		defer c.raw.SetDeadline(time.Time{})
	}
	err := c.Handshake()
	if err == nil {
		return nil
	}
	from := c.raw.RemoteAddr().String()
	var rh tls.RecordHeaderError
	switch {
	case errors.As(err, &rh) && rh.Conn != nil && looksLikeHTTP(rh.RecordHeader[:]):
		// What net/http answers on its own TLS path, in Fabric's envelope.
		_, _ = rh.Conn.Write(envelopeOf(fabricerr.New(http.StatusBadRequest, HTTPSRequired, httpsOnlyMessage)))
		c.log.Warn("https api: plain HTTP request on the HTTPS port; answered 400 (the emulator runs with --tls: use https:// and trust its CA, `fabric-emulator ca`)", "client", from)
	case errors.As(err, &rh):
		c.log.Warn("https api: the client did not start TLS; closing (the emulator runs with --tls)", "client", from)
	case errors.Is(err, io.EOF) || errors.Is(err, os.ErrDeadlineExceeded):
		c.log.Debug("https api: connection closed before the TLS handshake ended", "client", from, "err", err)
	default:
		c.log.Warn("https api: TLS handshake failed; closing (does the client trust the emulator's CA? `fabric-emulator ca` prints it)", "client", from, "err", err)
	}
	return &net.OpError{Op: "read", Net: "tcp", Source: c.raw.LocalAddr(), Addr: c.raw.RemoteAddr(), Err: err}
}

// HTTPSRequired is the errorCode of the 400 answering plain HTTP on the
// HTTPS port of an emulator started with TLS.
const HTTPSRequired = "HttpsRequired"

// httpsOnlyMessage is that answer's message (net/http's own words first).
const httpsOnlyMessage = "Client sent an HTTP request to an HTTPS server: the emulator runs with --tls; use https:// and trust its CA (fabric-emulator ca prints it)"

// looksLikeHTTP reports whether a connection's first bytes start an
// HTTP/1 request (what net/http's tlsRecordHeaderLooksLikeHTTP checks).
func looksLikeHTTP(b []byte) bool {
	switch string(b) {
	case "GET /", "HEAD ", "POST ", "PUT /", "OPTIO", "PATCH", "DELET":
		return true
	}
	return false
}

// looksLikeTLS reports whether a connection's first bytes are a TLS
// handshake record (content type 22, protocol version 3.x).
func looksLikeTLS(b []byte) bool { return len(b) >= 2 && b[0] == 0x16 && b[1] == 0x03 }

// plainConn is a plain connection that logs, once, a client that starts a
// TLS handshake on it.
type plainConn struct {
	net.Conn
	log  *slog.Logger
	seen bool
}

// Read implements net.Conn.
func (c *plainConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if !c.seen && n > 0 {
		c.seen = true
		if looksLikeTLS(p[:n]) {
			c.log.Warn("http api: a TLS client on the plain HTTP port; answering 400 (use http://, or start the emulator with --tls)", "client", c.RemoteAddr().String())
		}
	}
	return n, err
}
