package auth

import (
	"cmp"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// V1Issuer is the iss claim of Entra's v1.0 access tokens for tenant.
func V1Issuer(tenant string) string { return "https://sts.windows.net/" + tenant + "/" }

// signedClaims are Claims with a single audience written as a string.
type signedClaims struct {
	Claims
	Audience string `json:"aud"`
}

// Mint returns a signed token and its expiry.
func (i *Issuer) Mint(o MintOptions) (string, time.Time, error) {
	o.Principal = cmp.Or(o.Principal, DefaultPrincipal)
	o.Audience = cmp.Or(o.Audience, AudienceFabric)
	o.Tenant = cmp.Or(o.Tenant, TenantID)
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	now := i.now()
	exp := now.Add(o.TTL)
	c := Claims{
		ObjectID: o.Principal,
		TenantID: o.Tenant,
		Name:     o.Name,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    V1Issuer(o.Tenant),
			Subject:   o.Principal,
			Audience:  jwt.ClaimStrings{o.Audience},
			IssuedAt:  jwt.NewNumericDate(now.Add(-time.Minute)),
			NotBefore: jwt.NewNumericDate(now.Add(-time.Minute)),
			ExpiresAt: jwt.NewNumericDate(exp),
		},
	}
	if o.AppID != "" {
		c.AppID, c.AppIDACR, c.IDType, c.IdP, c.Version = o.AppID, "1", "app", c.Issuer, "1.0"
		c.TokenID = uuid.NewString()
		c.IssuedAt, c.NotBefore = jwt.NewNumericDate(now), jwt.NewNumericDate(now)
	} else {
		c.Scope = "Workspace.ReadWrite.All Item.ReadWrite.All Item.Execute.All"
		c.ID = uuid.NewString()
	}
	if o.TTL < 0 { // an expired token must still have iat/nbf before exp
		c.IssuedAt = jwt.NewNumericDate(exp.Add(-time.Hour))
		c.NotBefore = c.IssuedAt
	}
	// Entra writes a single audience as a string, not a list.
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, signedClaims{Claims: c, Audience: o.Audience})
	t.Header["kid"] = i.kid
	t.Header["x5t"] = i.kid // Entra's v1.0 tokens repeat the key id as x5t
	s, err := t.SignedString(i.key)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("sign token: %w", err)
	}
	return s, exp, nil
}
