package portal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// apiError is an answer of the API that is not a success, as the portal
// shows it: the status and Fabric's errorCode and message.
type apiError struct {
	Status int
	Env    wire.Error // the API's envelope
}

// newAPIError is the portal's own failure, in the API's envelope.
func newAPIError(status int, code wire.ErrorCode, format string, args ...any) *apiError {
	return &apiError{Status: status, Env: wire.Error{ErrorCode: code, Message: fmt.Sprintf(format, args...)}}
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.Env.ErrorCode, e.Env.Message)
}

// call sends method path (with body as JSON when not nil) to the API
// in-process as principal and decodes a success into out (when not nil).
func (p *Portal) call(r *http.Request, principal, method, path string, body, out any) error {
	tok, err := p.toks.get(principal)
	if err != nil {
		return fmt.Errorf("mint token: %w", err)
	}
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequestWithContext(r.Context(), method, path, rd)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	req.RemoteAddr, req.Host, req.TLS = r.RemoteAddr, r.Host, r.TLS
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	p.cfg.API.ServeHTTP(rec, req)
	if rec.Code >= 300 {
		e := &apiError{Status: rec.Code}
		if json.Unmarshal(rec.Body.Bytes(), &e.Env) != nil || e.Env.ErrorCode == "" {
			// Not the envelope (the API always answers one): shown as it came.
			e.Env = wire.Error{ErrorCode: wire.UnknownError, Message: http.StatusText(rec.Code) + ": " + rec.Body.String()}
		}
		return e
	}
	if out == nil || rec.Body.Len() == 0 {
		return nil
	}
	if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
		return fmt.Errorf("decode %s %s: %w", method, path, err)
	}
	return nil
}

// get is call with GET and no body.
func (p *Portal) get(r *http.Request, principal, path string, out any) error {
	return p.call(r, principal, http.MethodGet, path, nil, out)
}
