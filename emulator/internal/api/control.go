package api

import (
	"cmp"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/auth"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/google/uuid"
)

// tokenRequest is the optional body of POST /_emulator/token. Form fields of
// the same names are accepted too, like an OAuth2 token endpoint.
type tokenRequest struct {
	Principal string `json:"principal"`
	Name      string `json:"name"`
	Audience  string `json:"audience"`
	ExpiresIn int    `json:"expiresIn"` // seconds; negative mints an expired token
}

// mintToken answers an OAuth2-shaped token response to loopback callers.
func (a emulatorHandlers) mintToken(c *call) error {
	host, _, err := net.SplitHostPort(c.r.RemoteAddr)
	if ip := net.ParseIP(host); !a.cfg.RemoteTokens && (err != nil || ip == nil || !ip.IsLoopback()) {
		return fabricerr.New(http.StatusForbidden, fabricerr.Forbidden, "tokens are minted for loopback callers only")
	}
	var req tokenRequest
	if c.r.ContentLength != 0 && isJSON(c.r) {
		if err := a.decode(c, &req); err != nil {
			return err
		}
	} else {
		_ = c.r.ParseForm()
		req.Principal, req.Name, req.Audience = c.r.Form.Get("principal"), c.r.Form.Get("name"), c.r.Form.Get("audience")
		if s := c.r.Form.Get("expiresIn"); s != "" {
			if req.ExpiresIn, err = strconv.Atoi(s); err != nil {
				return fabricerr.BadParameter("expiresIn", "want whole seconds, got %q", s)
			}
		}
	}
	if req.Principal != "" {
		if _, err := uuid.Parse(req.Principal); err != nil {
			return fabricerr.BadParameter("principal", "want a GUID, got %q", req.Principal)
		}
	}
	if req.Audience != "" && req.Audience != auth.AudienceFabric && req.Audience != auth.AudiencePowerBI && req.Audience != auth.AudienceStorage {
		return fabricerr.BadParameter("audience", "want %s, %s or %s (OneLake)", auth.AudienceFabric, auth.AudiencePowerBI, auth.AudienceStorage)
	}
	tok, exp, err := a.cfg.Issuer.Mint(auth.MintOptions{
		Principal: req.Principal, Name: req.Name, Audience: req.Audience,
		TTL: time.Duration(req.ExpiresIn) * time.Second,
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{
		"access_token": tok,
		"token_type":   "Bearer",
		"expires_in":   max(0, int(time.Until(exp).Seconds())),
		"expires_on":   exp.Unix(),
		"resource":     cmp.Or(req.Audience, auth.AudienceFabric),
	})
}

func (a emulatorHandlers) health(c *call) error {
	return c.JSON(http.StatusOK, map[string]any{"status": "ok", "kafka": a.cfg.Broker.Kind(), "bootstrapServers": a.cfg.Broker.Bootstrap()})
}
