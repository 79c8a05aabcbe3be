package auth

import (
	"sync"

	"github.com/golang-jwt/jwt/v5"
)

// maxVerified bounds the verified tokens a Verifier remembers; when full,
// it forgets them all and starts again.
const maxVerified = 1024

// verifiedTokens remembers the claims of tokens whose signature checked
// out, so that a client sending the same token on every call pays the
// signature check once. The time claims are checked again on every use.
type verifiedTokens struct {
	mu     sync.Mutex
	claims map[string]*Claims
}

// lookup returns the remembered claims of raw while they are still within
// their time limits at now's time; nil otherwise (the caller verifies the
// token in full, which also words any error).
func (t *verifiedTokens) lookup(raw string, i *Issuer) *Claims {
	t.mu.Lock()
	c := t.claims[raw]
	t.mu.Unlock()
	if c == nil {
		return nil
	}
	if jwt.NewValidator(jwt.WithExpirationRequired(), jwt.WithTimeFunc(i.now)).Validate(c) != nil {
		t.mu.Lock()
		delete(t.claims, raw)
		t.mu.Unlock()
		return nil
	}
	cp := *c
	return &cp
}

// remember keeps the claims of a token that verified.
func (t *verifiedTokens) remember(raw string, c *Claims) {
	cp := *c
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.claims == nil || len(t.claims) >= maxVerified {
		t.claims = make(map[string]*Claims)
	}
	t.claims[raw] = &cp
}
