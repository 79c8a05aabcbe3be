package entra

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/fabrictest/fabrictest/emulator/internal/auth"
)

// maxFormBytes caps a token request's body.
const maxFormBytes = 64 << 10

// expiresIn is the lifetime the token answer states, as in Microsoft's
// example answer (the token itself is valid for auth.DefaultTTL).
const expiresIn = 3599

// token is the v2.0 token endpoint for the client-credentials grant
// (POST /{tenant}/oauth2/v2.0/token, form-encoded; the client secret in the
// body or as HTTP Basic, RFC 6749 2.3.1).
func (s *Service) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	_ = r.ParseForm() // an unreadable body leaves the form empty: grant_type is then missing
	tok, e := s.issue(r, r.PostForm.Get("scope"))
	if e != nil {
		s.refuse(w, r, *e)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"token_type": "Bearer", "expires_in": expiresIn, "ext_expires_in": expiresIn, "access_token": tok,
	})
}

// issue checks a client-credentials request in Entra's order (tenant,
// grant, client, secret, scope) and mints its token.
func (s *Service) issue(r *http.Request, scope string) (string, *stsError) {
	tid, multi, e := s.resolveTenant(r.PathValue("tenant"), "invalid_request")
	if e != nil {
		return "", e
	}
	if multi {
		err := errNoTenant()
		return "", &err
	}
	if e := checkGrant(r.PostForm.Get("grant_type")); e != nil {
		return "", e
	}
	app, e := s.client(r, tid)
	if e != nil {
		return "", e
	}
	if scope == "" {
		err := errMissing("scope")
		return "", &err
	}
	res, e := s.resource(scope)
	if e != nil {
		return "", e
	}
	tok, _, err := s.cfg.Issuer.Mint(auth.MintOptions{
		Principal: app.ObjectID, Name: app.DisplayName, Audience: res, AppID: app.ClientID, Tenant: tid,
	})
	if err != nil {
		s.cfg.Logger.Error("mint token", "err", err)
		e := stsError{http.StatusInternalServerError, "server_error", 90100, "The token could not be signed."}
		return "", &e
	}
	s.cfg.Logger.Debug("entra token issued", "clientId", app.ClientID, "oid", app.ObjectID, "tid", tid, "aud", res)
	return tok, nil
}

func checkGrant(grant string) *stsError {
	switch grant {
	case "client_credentials":
		return nil
	case "":
		e := errMissing("grant_type")
		return &e
	}
	e := errGrantType(grant)
	return &e
}

// client authenticates the request's client: client_id and client_secret
// from the body, or from HTTP Basic (each form-url-encoded).
func (s *Service) client(r *http.Request, tid string) (App, *stsError) {
	id, secret := r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	if u, p, ok := r.BasicAuth(); ok {
		uu, err1 := url.QueryUnescape(u)
		pp, err2 := url.QueryUnescape(p)
		if err1 == nil && err2 == nil {
			if id == "" {
				id = uu
			}
			if secret == "" && uu == id {
				secret = pp
			}
		}
	}
	if id == "" {
		e := errMissing("client_id")
		return App{}, &e
	}
	if secret == "" {
		e := errNoSecret()
		return App{}, &e
	}
	app, err := s.cfg.Apps.Authenticate(id, secret)
	switch {
	case errors.Is(err, ErrUnknownApp):
		e := errUnknownApp(id, tid)
		return App{}, &e
	case errors.Is(err, ErrWrongSecret):
		e := errWrongSecret(id)
		return App{}, &e
	}
	return app, nil
}

// tokenV1 is the v1.0 token endpoint (POST /{tenant}/oauth2/token, the
// resource named by resource=), for ADAL-era clients; its answer states
// times as strings, as Entra's v1.0 endpoint does.
func (s *Service) tokenV1(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	_ = r.ParseForm()
	res := r.PostForm.Get("resource")
	if res == "" {
		s.refuse(w, r, errMissing("resource"))
		return
	}
	tok, e := s.issue(r, res+"/.default")
	if e != nil {
		s.refuse(w, r, *e)
		return
	}
	now := s.cfg.Now().Unix()
	writeJSON(w, http.StatusOK, map[string]any{
		"token_type": "Bearer", "expires_in": strconv.Itoa(expiresIn), "ext_expires_in": strconv.Itoa(expiresIn),
		"expires_on": strconv.FormatInt(now+expiresIn, 10), "not_before": strconv.FormatInt(now, 10),
		"resource": res, "access_token": tok,
	})
}
