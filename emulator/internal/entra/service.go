// Package entra is the emulator's Entra ID-compatible token service: the
// OpenID discovery documents, the JWKS, the instance-discovery answer MSAL
// asks for, and the v2.0 token endpoint for the client-credentials grant,
// answering and refusing as Microsoft's identity platform does
// (learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow,
// .../reference-error-codes).
//
// Choices where Microsoft is silent (or where the emulator stands alone):
//   - Tenants. The default tenant is auth.TenantID. Without a fixed tenant
//     (WithTenant) any tenant GUID is a tenant of its own (tokens carry it
//     as tid) and a domain name (contoso.onmicrosoft.com) is the default
//     tenant; with one, every other tenant is unknown (AADSTS90002). The
//     client-credentials grant needs a tenant: common, organizations and
//     consumers are refused (AADSTS50059), as Entra and MSAL .NET/JS do.
//   - Applications. See Apps: any GUID client id with any secret, unless the
//     registry is strict; a registered application's secret is checked.
//   - Tokens are v1.0 access tokens (see package auth), valid for an hour;
//     expires_in and ext_expires_in are 3599 as in Microsoft's example.
package entra

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/auth"
)

// Config is what the token service needs.
type Config struct {
	// Issuer signs the tokens.
	Issuer *auth.Issuer
	// Apps is the application registry (default: an open one).
	Apps *Apps
	// Tenant fixes the one tenant; empty accepts any tenant GUID, with
	// auth.TenantID for domain names.
	Tenant string
	// Resources are extra token audiences beyond Fabric, Power BI, Storage
	// and Kusto clusters (the attached Kusto engine's URL).
	Resources []string
	// Logger gets one line per refused request.
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Service serves the token service's routes.
type Service struct {
	cfg Config
}

// New returns the token service of cfg.
func New(cfg Config) *Service {
	if cfg.Apps == nil {
		cfg.Apps = NewApps(false)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{cfg: cfg}
}

// Apps is the service's application registry.
func (s *Service) Apps() *Apps { return s.cfg.Apps }

// Routes are the service's routes as http.ServeMux patterns.
func (s *Service) Routes() map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{
		"GET /{tenant}/v2.0/.well-known/openid-configuration": s.openIDConfigV2,
		"GET /{tenant}/.well-known/openid-configuration":      s.openIDConfigV1,
		"GET /{tenant}/discovery/instance":                    s.instanceDiscovery,
		"GET /{tenant}/discovery/v2.0/keys":                   s.keys,
		"GET /{tenant}/discovery/keys":                        s.keys,
		"POST /{tenant}/oauth2/v2.0/token":                    s.token,
		"POST /{tenant}/oauth2/token":                         s.tokenV1,
	}
}

// baseURL is the scheme and host the caller reached the service at: the
// authority host its documents name.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
