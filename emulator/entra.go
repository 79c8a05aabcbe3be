package emulator

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/auth"
	"github.com/fabrictest/fabrictest/emulator/internal/entra"
	"github.com/google/uuid"
)

// EntraApp is an application registration of the emulator's Entra token
// service: a client id (GUID), its secret, and optionally the object id of
// its service principal (default ServicePrincipalID(clientId)) and a
// display name.
type EntraApp = entra.App

// ServicePrincipalID is the object id (the oid of its tokens, the principal
// id of its workspace role assignments) the token service gives a client id
// that is not registered with an object id of its own: the same in every
// tenant and across restarts.
func ServicePrincipalID(clientID string) string { return entra.ServicePrincipalID(clientID) }

// DefaultTenantID is the tenant of the token service unless
// WithEntraTenant names another.
const DefaultTenantID = auth.TenantID

// LoadEntraApps reads a JSON list of applications
// ([{"clientId", "clientSecret", "objectId"?, "displayName"?}]), the format
// of --entra-apps.
func LoadEntraApps(path string) ([]EntraApp, error) { return entra.LoadApps(path) }

// WithEntraApps makes the token service's application registry strict:
// only these applications get tokens, each with its own secret (any other
// client id is refused with AADSTS700016, a wrong secret with
// AADSTS7000215). Without it any GUID client id gets tokens with any
// secret, except those registered (RegisterEntraApp), whose secret is checked.
func WithEntraApps(apps ...EntraApp) Option {
	return func(c *config) error {
		for _, a := range apps {
			if _, err := entra.NewApps(true).Register(a); err != nil {
				return fmt.Errorf("entra apps: %w", err)
			}
		}
		c.entraApps, c.entraStrict = append(c.entraApps, apps...), true
		return nil
	}
}

// WithEntraTenant fixes the token service's one tenant (a GUID): tokens
// carry it as tid, and every other tenant is unknown (AADSTS90002).
// Default: DefaultTenantID, with any other tenant GUID accepted as a
// tenant of its own.
func WithEntraTenant(id string) Option {
	return func(c *config) error {
		u, err := uuid.Parse(id)
		if err != nil {
			return fmt.Errorf("entra tenant %q: want a GUID", id)
		}
		c.entraTenant = u.String()
		return nil
	}
}

// WithTrustedIssuer accepts bearer tokens (RS256 or ES256) of another
// OpenID issuer: url is its issuer URL (another emulator's authority,
// https://login.microsoftonline.com/{tenant}/v2.0, …) or its discovery
// document's URL. The issuer's keys come from its discovery document's
// jwks_uri, fetched at first use, cached, and refreshed when a token names
// an unknown key. Its tokens must meet the emulator's own rules: a Fabric
// or Power BI audience, an unexpired exp, a GUID oid. Repeatable.
func WithTrustedIssuer(url string) Option {
	return func(c *config) error {
		if url == "" {
			return errors.New("trusted issuer: empty URL")
		}
		c.trustedIssuers = append(c.trustedIssuers, url)
		return nil
	}
}

// WithTrustedIssuerClient sets the HTTP client that reads trusted issuers'
// discovery documents and keys (default: a client trusting the system's
// roots, SSL_CERT_FILE included).
func WithTrustedIssuerClient(client *http.Client) Option {
	return func(c *config) error { c.issuerClient = client; return nil }
}

// identity builds the token verifier (the emulator's own tokens and the
// trusted issuers') and the Entra token service.
func (s *Server) identity() (*auth.Verifier, *entra.Service, error) {
	for _, u := range s.cfg.trustedIssuers {
		t, err := auth.NewTrustedIssuer(u, s.cfg.issuerClient, s.cfg.logger)
		if err != nil {
			return nil, nil, err
		}
		s.trusted = append(s.trusted, t)
	}
	apps := entra.NewApps(s.cfg.entraStrict, s.cfg.entraApps...)
	svc := entra.New(entra.Config{Issuer: s.issuer, Apps: apps, Tenant: s.cfg.entraTenant,
		Resources: nonEmpty(s.cfg.kqlURL), Logger: s.cfg.logger})
	return auth.NewVerifier(s.issuer, s.trusted...), svc, nil
}

// RegisterEntraApp registers (or replaces) an application of the token
// service and returns it with its object id; its secret is checked from
// then on.
func (s *Server) RegisterEntraApp(app EntraApp) (EntraApp, error) {
	got, err := s.entra.Apps().Register(app)
	got.ClientSecret = ""
	return got, err
}

// TenantID is the token service's tenant.
func (s *Server) TenantID() string {
	if s.cfg.entraTenant != "" {
		return s.cfg.entraTenant
	}
	return DefaultTenantID
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
