package entra

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/auth"
)

// openIDConfigV2 answers the v2.0 OpenID discovery document MSAL reads
// ({authority}/v2.0/.well-known/openid-configuration): the issuer on the
// authority's own host (MSAL checks that they match), the token endpoint
// and the JWKS. common, organizations and consumers name {tenantid} in
// the issuer, as Entra's do.
func (s *Service) openIDConfigV2(w http.ResponseWriter, r *http.Request) {
	tid, multi, e := s.resolveTenant(r.PathValue("tenant"), "invalid_tenant")
	if e != nil {
		s.refuse(w, r, *e)
		return
	}
	base := baseURL(r)
	issuer := base + "/" + tid + "/v2.0"
	if multi {
		issuer = base + "/{tenantid}/v2.0"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                issuer,
		"token_endpoint":                        base + "/" + tid + "/oauth2/v2.0/token",
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "client_secret_basic"},
		"jwks_uri":                              base + "/" + tid + "/discovery/v2.0/keys",
		"authorization_endpoint":                base + "/" + tid + "/oauth2/v2.0/authorize",
		"device_authorization_endpoint":         base + "/" + tid + "/oauth2/v2.0/devicecode",
		"end_session_endpoint":                  base + "/" + tid + "/oauth2/v2.0/logout",
		"response_types_supported":              []string{"code", "id_token", "code id_token", "id_token token"},
		"response_modes_supported":              []string{"query", "fragment", "form_post"},
		"subject_types_supported":               []string{"pairwise"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"scopes_supported":                      []string{"openid", "profile", "email", "offline_access"},
		"grant_types_supported":                 []string{"client_credentials"},
		"request_uri_parameter_supported":       false,
		"tenant_region_scope":                   nil,
		"cloud_instance_name":                   r.Host,
	})
}

// openIDConfigV1 answers the v1.0 discovery document
// ({authority}/.well-known/openid-configuration), whose issuer is the one
// of v1.0 access tokens: a --trusted-issuer naming another emulator's
// {authority} checks that emulator's tokens against it.
func (s *Service) openIDConfigV1(w http.ResponseWriter, r *http.Request) {
	tid, multi, e := s.resolveTenant(r.PathValue("tenant"), "invalid_tenant")
	if e != nil {
		s.refuse(w, r, *e)
		return
	}
	base := baseURL(r)
	issuer := auth.V1Issuer(tid)
	if multi {
		issuer = auth.V1Issuer("{tenantid}")
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                issuer,
		"token_endpoint":                        base + "/" + tid + "/oauth2/token",
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "client_secret_basic"},
		"jwks_uri":                              base + "/" + tid + "/discovery/keys",
		"authorization_endpoint":                base + "/" + tid + "/oauth2/authorize",
		"response_types_supported":              []string{"code", "id_token", "code id_token", "token id_token", "token"},
		"subject_types_supported":               []string{"pairwise"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"cloud_instance_name":                   r.Host,
	})
}

// instanceDiscovery answers MSAL's instance discovery
// (GET /common/discovery/instance?api-version=1.1&authorization_endpoint=…)
// with the authority's own host as its only alias. MSAL libraries send it
// to login.microsoftonline.com for any host they do not know, so a client
// reaches this route only when it is pointed here.
func (s *Service) instanceDiscovery(w http.ResponseWriter, r *http.Request) {
	host, tenant := r.Host, "common"
	if u, err := url.Parse(r.URL.Query().Get("authorization_endpoint")); err == nil && u.Host != "" {
		host = u.Host
		if seg, _, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/"); seg != "" {
			tenant = seg
		}
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"tenant_discovery_endpoint": scheme + "://" + host + "/" + tenant + "/v2.0/.well-known/openid-configuration",
		"api-version":               "1.1",
		"metadata": []map[string]any{{
			"preferred_network": host, "preferred_cache": host, "aliases": []string{host},
		}},
	})
}

// keys answers the JWKS of the token signing key.
func (s *Service) keys(w http.ResponseWriter, r *http.Request) {
	set, err := s.cfg.Issuer.JWKS()
	if err != nil {
		s.cfg.Logger.Error("encode JWKS", "err", err)
		http.Error(w, "the signing key cannot be encoded", http.StatusInternalServerError)
		return
	}
	writeJSON(w, http.StatusOK, set)
}
