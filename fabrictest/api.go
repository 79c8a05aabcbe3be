package fabrictest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// Response is one answer of the emulator's HTTP API.
type Response struct {
	// Status is the HTTP status code.
	Status int
	// Header holds the response headers (requestid, Location, …).
	Header http.Header
	// Body is the raw response body.
	Body []byte
	// RequestID is the emulator's request id (the requestid header), for
	// matching a failure with the emulator's log.
	RequestID string
}

// Decode unmarshals the JSON body into v.
func (r *Response) Decode(v any) error {
	if err := json.Unmarshal(r.Body, v); err != nil {
		return fmt.Errorf("decode %d answer: %w: %s", r.Status, err, snippet(r.Body))
	}
	return nil
}

// APIError is a non-2xx answer in Fabric's error envelope. Helpers named
// Try… return it (as error) so that tests can assert failures; use
// errors.As, or the HaveErrorCode matcher.
//
// The envelope's fields (ErrorCode, Message, RequestID, MoreDetails,
// RelatedResource) are those of wire.Error: ErrorCode is Fabric's stable
// code, such as "ItemNotFound"; the message may change between releases.
type APIError struct {
	// Method and Path are the request that failed.
	Method, Path string `json:"-"`
	// Status is the HTTP status code, such as 404.
	Status int `json:"-"`
	ErrorEnvelope
	// Response is the whole answer.
	Response *Response `json:"-"`
}

// ErrorEnvelope is Fabric's error envelope, as an APIError holds it.
type ErrorEnvelope = wire.Error

// ErrorDetail is one entry of an error's moreDetails.
type ErrorDetail = wire.ErrorDetail

// RelatedResource names the resource an error is about.
type RelatedResource = wire.RelatedResource

// Error reads like "GET /v1/…: 404 ItemNotFound: The requested … (requestId …)".
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d", e.Method, e.Path, e.Status)
	if e.ErrorCode != "" {
		b.WriteString(" " + string(e.ErrorCode))
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	for _, d := range e.MoreDetails {
		fmt.Fprintf(&b, " [%s: %s]", d.ErrorCode, d.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" (requestId " + e.RequestID + ")")
	}
	return b.String()
}

// ErrorCode returns the Fabric errorCode of err if it is (or wraps) an
// *APIError, and "" otherwise.
func ErrorCode(err error) string {
	var ae *APIError
	if errors.As(err, &ae) {
		return string(ae.ErrorCode)
	}
	return ""
}

// Call sends method path (relative to URL, such as "/v1/workspaces") with
// body as the caller of e and returns the 2xx answer; anything else fails the
// test with the Fabric errorCode and message. body may be nil, a string or
// []byte (sent as is) or any value (sent as JSON). Use it for routes the
// helpers do not cover.
func (e *Env) Call(method, path string, body any) *Response {
	e.t.Helper()
	r, err := e.TryCall(method, path, body)
	if err != nil {
		e.t.Fatalf("fabrictest: %v", err)
	}
	return r
}

// TryCall is Call that returns an *APIError for a non-2xx answer (with the
// Response inside it) instead of failing the test.
func (e *Env) TryCall(method, path string, body any) (*Response, error) {
	return e.do(method, path, nil, body, 0, nil)
}

// do sends one request. query is appended to path; wait extends the call
// timeout (a consume that waits for records); out, when set, receives the
// decoded 2xx body.
func (e *Env) do(method, path string, query url.Values, body any, wait time.Duration, out any) (*Response, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case json.RawMessage:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encode body: %w", method, path, err)
		}
		rd = bytes.NewReader(j)
	}
	target := e.URL + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	ctx, cancel := context.WithTimeout(e.ctx, e.c.cfg.callTimeout+wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	tok, err := e.tryToken(e.principal)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	hr, err := e.c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer hr.Body.Close()
	raw, err := io.ReadAll(hr.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	resp := &Response{Status: hr.StatusCode, Header: hr.Header, Body: raw, RequestID: hr.Header.Get("requestid")}
	if hr.StatusCode < 200 || hr.StatusCode > 299 {
		ae := &APIError{Method: method, Path: path, Status: hr.StatusCode, Response: resp}
		if json.Unmarshal(raw, ae) != nil || ae.ErrorCode == "" {
			ae.ErrorCode = wire.ErrorCode(hr.Header.Get("x-ms-public-api-error-code"))
			if ae.Message == "" {
				ae.Message = snippet(raw)
			}
		}
		if ae.RequestID == "" {
			ae.RequestID = resp.RequestID
		}
		return resp, ae
	}
	if out != nil {
		if err := resp.Decode(out); err != nil {
			return resp, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return resp, nil
}

// snippet shortens a body for a message.
func snippet(b []byte) string {
	const max = 300
	s := strings.TrimSpace(string(b))
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
