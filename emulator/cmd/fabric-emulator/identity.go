package main

import (
	"flag"
	"os"
	"strings"

	"github.com/fabrictest/fabrictest/emulator"
)

// identityFlags declares the token service's flags on fs and returns what
// makes their options once fs is parsed.
func identityFlags(fs *flag.FlagSet) func() ([]emulator.Option, error) {
	apps := fs.String("entra-apps", env("FABRIC_ENTRA_APPS", ""), "JSON file of the only applications the Entra token service knows: [{\"clientId\", \"clientSecret\", \"objectId\"?, \"displayName\"?}]; default: any client id and secret (FABRIC_ENTRA_APPS)")
	tenant := fs.String("entra-tenant", env("FABRIC_ENTRA_TENANT", ""), "the token service's one tenant id; other tenants are unknown (AADSTS90002); default "+emulator.DefaultTenantID+", any tenant GUID accepted (FABRIC_ENTRA_TENANT)")
	var issuers listFlag
	for _, u := range strings.FieldsFunc(os.Getenv("FABRIC_TRUSTED_ISSUERS"), func(r rune) bool { return r == ',' || r == ' ' }) {
		issuers = append(issuers, u)
	}
	fs.Var(&issuers, "trusted-issuer", "URL of another OpenID issuer whose RS256/ES256 tokens the API accepts (by its discovery document's jwks_uri); repeatable (FABRIC_TRUSTED_ISSUERS, comma-separated)")
	return func() ([]emulator.Option, error) {
		var opts []emulator.Option
		if *apps != "" {
			list, err := emulator.LoadEntraApps(*apps)
			if err != nil {
				return nil, err
			}
			opts = append(opts, emulator.WithEntraApps(list...))
		}
		if *tenant != "" {
			opts = append(opts, emulator.WithEntraTenant(*tenant))
		}
		for _, u := range issuers {
			opts = append(opts, emulator.WithTrustedIssuer(u))
		}
		return opts, nil
	}
}
