package api

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

func isJSON(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "" || strings.HasSuffix(mt, "json")
}

// readBody reads the request body up to the configured cap.
func (a *API) readBody(c *call) ([]byte, error) { return a.readBodyInto(c, nil) }

// readBodyInto is readBody into buf's memory when it is large enough.
func (a *API) readBodyInto(c *call, buf []byte) ([]byte, error) {
	body, err := readAll(buf, http.MaxBytesReader(c.w, c.r.Body, a.cfg.MaxRequestBytes), c.r.ContentLength, a.cfg.MaxRequestBytes)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, fabricerr.New(http.StatusRequestEntityTooLarge, fabricerr.RequestBodyTooLarge,
			"the request body exceeds the limit of %d bytes", a.cfg.MaxRequestBytes)
	} else if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, fabricerr.New(http.StatusRequestTimeout, fabricerr.RequestTimeout,
			"the request body did not arrive within the server's read timeout")
	} else if err != nil {
		// The connection's own words name the server's address: not shown.
		return nil, fabricerr.New(http.StatusBadRequest, fabricerr.InvalidRequest,
			"the request body could not be read: its chunked encoding is malformed or the connection closed before it was complete")
	}
	return body, nil
}

// readAll is io.ReadAll into a buffer sized by the request's
// Content-Length (when it is within the limit), so a large body is not
// copied over and over as the buffer grows; into buf when it has room.
func readAll(buf []byte, r io.Reader, length, limit int64) ([]byte, error) {
	if length <= 0 || length > limit {
		return io.ReadAll(r)
	}
	b := buf[:0]
	if int64(cap(b)) <= length {
		b = make([]byte, 0, length+1) // +1: reading EOF needs no growth
	}
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		} else if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // longer than announced: let it grow
		}
	}
}

// decode reads a JSON object body into v, refusing unknown fields and
// trailing data with errors that name the problem.
func (a *API) decode(c *call, v any) error {
	body, err := a.readBody(c)
	if err != nil {
		return err
	}
	return fabricerr.DecodeJSON(body, v)
}

// page reads ?continuationToken into a store page of the configured size.
func (a *API) page(c *call) (store.Page, error) {
	p := store.Page{Limit: a.cfg.PageSize}
	tok := c.r.URL.Query().Get("continuationToken")
	if tok == "" {
		return p, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err == nil {
		p.After, err = strconv.ParseInt(strings.TrimPrefix(string(raw), "seq:"), 10, 64)
	}
	if err != nil || !strings.HasPrefix(string(raw), "seq:") || p.After <= 0 {
		return p, fabricerr.New(http.StatusBadRequest, fabricerr.InvalidContinuationToken, "continuationToken %q is not one this API issued", tok)
	}
	return p, nil
}

// list renders a Fabric page: value, plus continuationToken and
// continuationUri unless this is the last page.
func list[T any](c *call, values []T, next int64) error {
	if values == nil {
		values = []T{}
	}
	body := wire.List[T]{Value: values}
	if next > 0 {
		tok := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "seq:%d", next))
		q := c.r.URL.Query()
		q.Set("continuationToken", tok)
		body.ContinuationToken = tok
		body.ContinuationURI = c.baseURL() + c.r.URL.Path + "?" + q.Encode()
	}
	return c.JSON(http.StatusOK, body)
}

// location sets the Location header to an absolute URL of path.
func (c *call) location(path ...string) {
	c.w.Header().Set("Location", c.baseURL()+"/v1/"+strings.Join(escapeAll(path), "/"))
}

func escapeAll(p []string) []string {
	out := make([]string, len(p))
	for i, s := range p {
		out[i] = url.PathEscape(s)
	}
	return out
}
