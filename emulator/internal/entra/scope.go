package entra

import (
	"net/url"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/auth"
)

// knownResources are the resources whose tokens the service issues, by
// their application ID URIs.
var knownResources = []string{auth.AudienceFabric, auth.AudiencePowerBI, auth.AudienceStorage, auth.AudienceKusto, auth.AudienceEventHubs}

// knownResourcesText names them in refusals.
var knownResourcesText = append(slices.Clone(knownResources), "https://{cluster}.kusto.windows.net", "https://{eventhouse}.kusto.fabric.microsoft.com")

// oidcScopes are the OpenID scopes some clients add to every request;
// Entra ignores them in a client-credentials request.
var oidcScopes = map[string]bool{"openid": true, "profile": true, "offline_access": true, "email": true}

// resource returns the one resource a client-credentials scope names (its
// token's audience, as requested), or why the scope is refused.
func (s *Service) resource(scope string) (string, *stsError) {
	var resources []string
	for _, sc := range strings.Fields(scope) {
		if oidcScopes[strings.ToLower(sc)] {
			continue
		}
		res, ok := strings.CutSuffix(sc, "/.default")
		if !ok || res == "" {
			e := errScopeNotDefault(sc)
			return "", &e
		}
		if !slices.Contains(resources, res) {
			resources = append(resources, res)
		}
	}
	switch {
	case len(resources) == 0:
		e := errScopeNotDefault(scope)
		return "", &e
	case len(resources) > 1:
		e := errScopeResources(scope)
		return "", &e
	case !s.knownResource(resources[0]):
		e := errScopeUnknown(resources[0] + "/.default")
		return "", &e
	}
	return resources[0], nil
}

// knownResource reports whether res (with or without a trailing slash) is
// Fabric, Power BI, Storage, a Kusto cluster (Azure Data Explorer's
// *.kusto.windows.net, a Fabric Eventhouse's *.kusto.fabric.microsoft.com)
// or one of the configured extra resources (the attached Kusto engine).
func (s *Service) knownResource(res string) bool {
	r := strings.TrimSuffix(res, "/")
	if slices.Contains(knownResources, r) {
		return true
	}
	for _, extra := range s.cfg.Resources {
		if strings.EqualFold(strings.TrimSuffix(extra, "/"), r) {
			return true
		}
	}
	u, err := url.Parse(r)
	if err != nil || u.Scheme != "https" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	return strings.HasSuffix(host, ".kusto.windows.net") || strings.HasSuffix(host, ".kusto.fabric.microsoft.com")
}
