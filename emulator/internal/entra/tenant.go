package entra

import (
	"cmp"
	"regexp"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/auth"
	"github.com/google/uuid"
)

// multiTenant are the authority segments that name no tenant.
var multiTenant = map[string]bool{"common": true, "organizations": true, "consumers": true}

// dnsName matches a domain name such as contoso.onmicrosoft.com.
var dnsName = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)

// defaultTenant is the tenant of domain names and of the strict mode.
func (s *Service) defaultTenant() string { return cmp.Or(s.cfg.Tenant, auth.TenantID) }

// resolveTenant maps an authority's tenant segment to a tenant id (the tid
// of tokens). multi reports common, organizations or consumers, which it
// returns as they are. notFound is the OAuth2 error code of an unknown
// tenant: invalid_tenant on discovery, invalid_request on the token
// endpoint (as Entra answers).
func (s *Service) resolveTenant(segment, notFound string) (tid string, multi bool, e *stsError) {
	t := strings.ToLower(segment)
	if multiTenant[t] {
		return t, true, nil
	}
	if id, err := uuid.Parse(t); err == nil && len(t) == 36 {
		if s.cfg.Tenant != "" && id.String() != strings.ToLower(s.cfg.Tenant) {
			err := errTenantNotFound(notFound, segment)
			return "", false, &err
		}
		return id.String(), false, nil
	}
	if dnsName.MatchString(t) {
		if s.cfg.Tenant != "" {
			err := errTenantNotFound(notFound, segment)
			return "", false, &err
		}
		return s.defaultTenant(), false, nil
	}
	err := errTenantInvalid(segment)
	return "", false, &err
}
