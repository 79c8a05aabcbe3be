package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Verify checks an Authorization header value ("Bearer <jwt>") against this
// Issuer's own key and returns the token's claims. The error wraps
// ErrMissing, ErrExpired or ErrInvalid.
func (i *Issuer) Verify(authorization string) (*Claims, error) {
	return NewVerifier(i).Verify(context.Background(), authorization)
}

// Verifier accepts the emulator's own tokens and those signed by trusted
// issuers, for the Fabric and Power BI audiences.
type Verifier struct {
	own      *Issuer
	trusted  []*TrustedIssuer
	verified verifiedTokens
}

// NewVerifier returns a Verifier of own's tokens and of the trusted issuers'.
func NewVerifier(own *Issuer, trusted ...*TrustedIssuer) *Verifier {
	return &Verifier{own: own, trusted: trusted}
}

// Verify checks an Authorization header value ("Bearer <jwt>") and returns
// the token's claims. The error wraps ErrMissing, ErrExpired or ErrInvalid
// and says why in the caller's terms.
func (v *Verifier) Verify(ctx context.Context, authorization string) (*Claims, error) {
	c, err := v.verify(ctx, authorization)
	if err != nil {
		return nil, err
	}
	return c, checkClaims(c)
}

// VerifyStorage checks an Authorization header value as OneLake does: the
// token's audience must be the storage resource (AudienceStorage).
func (v *Verifier) VerifyStorage(ctx context.Context, authorization string) (*Claims, error) {
	c, err := v.verify(ctx, authorization)
	if err != nil {
		return nil, err
	}
	return c, checkAudience(c, AudienceStorage)
}

// VerifyEventHubs checks a bare token (no "Bearer " prefix, as the Event
// Hubs SDKs put it on $cbs) whose audience must be AudienceEventHubs.
func (v *Verifier) VerifyEventHubs(ctx context.Context, token string) (*Claims, error) {
	c, err := v.verify(ctx, "Bearer "+token)
	if err != nil {
		return nil, err
	}
	return c, checkAudience(c, AudienceEventHubs)
}

// verify checks the signature and expiry of a bearer token; a token
// whose signature checked out before has only its expiry checked again.
func (v *Verifier) verify(ctx context.Context, authorization string) (*Claims, error) {
	raw, err := bearer(authorization)
	if err != nil {
		return nil, err
	}
	if c := v.verified.lookup(raw, v.own); c != nil {
		return c, nil
	}
	c, err := v.verifySignature(ctx, raw)
	if err != nil {
		return nil, err
	}
	v.verified.remember(raw, c)
	return c, nil
}

// verifySignature checks the signature and expiry of raw.
func (v *Verifier) verifySignature(ctx context.Context, raw string) (*Claims, error) {
	var peek Claims
	tok, _, err := jwt.NewParser().ParseUnverified(raw, &peek)
	if err != nil {
		return nil, fmt.Errorf("%w: not a JWT: %v", ErrInvalid, err)
	}
	if kid, _ := tok.Header["kid"].(string); kid == "" || kid == v.own.kid {
		return v.own.parse(raw, v.own.ownKey, "RS256")
	}
	var reasons []string
	for _, t := range v.trusted {
		key, err := t.keyFor(ctx, peek.Issuer, peek.TenantID)
		if errors.Is(err, errNotThisIssuer) {
			continue
		} else if err != nil {
			reasons = append(reasons, err.Error())
			continue
		}
		return v.own.parse(raw, key, "RS256", "ES256")
	}
	return nil, v.untrusted(tok, peek.Issuer, reasons)
}

// untrusted explains a token no configured issuer vouches for.
func (v *Verifier) untrusted(tok *jwt.Token, iss string, reasons []string) error {
	kid, _ := tok.Header["kid"].(string)
	msg := fmt.Sprintf("the token was issued by %q (signing key %q), which this emulator does not trust", iss, kid)
	if len(v.trusted) == 0 {
		msg += "; it trusts only its own token service (--trusted-issuer adds an OpenID issuer)"
	} else {
		urls := make([]string, len(v.trusted))
		for i, t := range v.trusted {
			urls[i] = t.URL()
		}
		msg += "; it trusts its own token service and " + strings.Join(urls, ", ")
	}
	if len(reasons) > 0 {
		msg += " (" + strings.Join(reasons, "; ") + ")"
	}
	return fmt.Errorf("%w: %s", ErrInvalid, msg)
}

// ownKey is the key lookup of the Issuer's own tokens.
func (i *Issuer) ownKey(*jwt.Token) (any, error) { return &i.key.PublicKey, nil }

// parse verifies raw's signature with the key keyFn finds and checks its
// claims.
func (i *Issuer) parse(raw string, keyFn jwt.Keyfunc, methods ...string) (*Claims, error) {
	var c Claims
	_, err := jwt.ParseWithClaims(raw, &c, keyFn,
		jwt.WithValidMethods(methods),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(i.now),
	)
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return nil, fmt.Errorf("%w: %v", ErrExpired, err)
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return &c, nil
}

// checkClaims applies Fabric's audience rule and requires a principal.
func checkClaims(c *Claims) error {
	audOK := false
	for _, a := range c.Audience {
		a = strings.TrimSuffix(a, "/")
		if a == AudienceFabric || a == AudiencePowerBI {
			audOK = true
		}
	}
	if !audOK {
		return fmt.Errorf("%w: audience %v is neither %s nor %s (ask for the scope %s/.default)",
			ErrInvalid, []string(c.Audience), AudienceFabric, AudiencePowerBI, AudienceFabric)
	}
	if _, err := uuid.Parse(c.ObjectID); err != nil {
		return fmt.Errorf("%w: oid claim %q is not a GUID", ErrInvalid, c.ObjectID)
	}
	return nil
}

// checkAudience requires audience want and a principal.
func checkAudience(c *Claims, want string) error {
	for _, a := range c.Audience {
		if strings.TrimSuffix(a, "/") == want {
			if _, err := uuid.Parse(c.ObjectID); err != nil {
				return fmt.Errorf("%w: oid claim %q is not a GUID", ErrInvalid, c.ObjectID)
			}
			return nil
		}
	}
	return fmt.Errorf("%w: audience %v is not %s (ask for the scope %s/.default)",
		ErrInvalid, []string(c.Audience), want, want)
}

// bearer returns the token of an Authorization header value.
func bearer(authorization string) (string, error) {
	if authorization == "" {
		return "", ErrMissing
	}
	scheme, tok, ok := strings.Cut(strings.TrimSpace(authorization), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return "", fmt.Errorf("%w: the Authorization header must be 'Bearer <token>'", ErrInvalid)
	}
	return strings.TrimSpace(tok), nil
}
