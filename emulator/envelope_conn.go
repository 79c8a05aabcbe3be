package emulator

import (
	"bufio"
	"bytes"
	"cmp"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/google/uuid"
)

// envelopeConn wraps each accepted connection (apiListener) so that the
// answers net/http writes by itself, before any handler runs (a request
// line or a header it cannot parse, such as a '%' escape that is not one;
// headers over the limit; an unknown transfer encoding), are Fabric's JSON
// error envelope instead of text/plain.
type envelopeConn struct{ net.Conn }

// goErrorHeaders is what net/http writes after the status line of its own
// error answers (conn.serve in server.go), in one Write, and nowhere else:
// a handler's answer always has a Date header and a length or a chunked
// encoding between its status line and its body.
const goErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// Write implements net.Conn, turning net/http's own error answers into
// the envelope.
func (c envelopeConn) Write(p []byte) (int, error) {
	status, reason, ok := parseGoError(p)
	if !ok {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(envelopeAnswer(status, reason)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// parseGoError reads net/http's error answer: "HTTP/1.1 400 Bad Request:
// reason" + goErrorHeaders + body. reason is "" when there is none.
func parseGoError(p []byte) (status int, reason string, ok bool) {
	rest, found := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	if !found {
		return 0, "", false
	}
	line, _, found := bytes.Cut(rest, []byte(goErrorHeaders))
	if !found || len(line) < 3 || bytes.Contains(line, []byte("\r\n")) {
		return 0, "", false
	}
	status, err := strconv.Atoi(string(line[:3]))
	if err != nil {
		return 0, "", false
	}
	_, reason, _ = strings.Cut(string(line), ": ")
	return status, reason, true
}

// envelopeAnswer is the whole HTTP answer for one of net/http's errors.
func envelopeAnswer(status int, reason string) []byte {
	return envelopeOf(protocolError(status, reason))
}

// envelopeOf is the whole HTTP answer for fe, closing the connection.
func envelopeOf(fe *fabricerr.Error) []byte {
	rec := &bufferedAnswer{header: http.Header{}}
	fabricerr.Write(rec, uuid.NewString(), fe)
	resp := http.Response{
		StatusCode: rec.status, ProtoMajor: 1, ProtoMinor: 1, Header: rec.header, Close: true,
		ContentLength: int64(rec.body.Len()), Body: io.NopCloser(&rec.body),
	}
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	_ = resp.Write(w)
	_ = w.Flush()
	return out.Bytes()
}

// protocolError says in the envelope what net/http refused.
func protocolError(status int, reason string) *fabricerr.Error {
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		return fabricerr.New(status, fabricerr.RequestHeadersTooLarge,
			"The request's line and headers exceed the limit of %d bytes", http.DefaultMaxHeaderBytes)
	case http.StatusNotImplemented:
		return fabricerr.New(status, fabricerr.UnsupportedTransferEncoding,
			"The request's Transfer-Encoding is not supported; send the body with a Content-Length or chunked")
	case http.StatusBadRequest:
		if reason == "" {
			reason = "its request line or a header is malformed (a '%' in the path must start an escape of two hex digits: write a literal '%' as %25)"
		}
		return fabricerr.New(status, fabricerr.InvalidRequest, "The request is not valid HTTP/1.1: %s", reason)
	}
	return fabricerr.New(status, fabricerr.InvalidRequest, "The request is not valid HTTP: %s", cmp.Or(reason, http.StatusText(status)))
}

// bufferedAnswer is an http.ResponseWriter that keeps what is written.
type bufferedAnswer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedAnswer) Header() http.Header         { return b.header }
func (b *bufferedAnswer) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *bufferedAnswer) WriteHeader(code int)        { b.status = code }
