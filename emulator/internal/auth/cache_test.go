package auth

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A Verifier remembers a token whose signature checked out, but every use
// checks its expiry again against the issuer's clock: a remembered token
// still expires, and a token that failed is never remembered.
func TestVerifierRemembersOnlyWhileValid(t *testing.T) {
	iss, err := NewIssuer()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	iss.SetClock(func() time.Time { return now })
	v := NewVerifier(iss)
	tok, _, err := iss.Mint(MintOptions{TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // verified, then remembered
		c, err := v.Verify(context.Background(), "Bearer "+tok)
		if err != nil {
			t.Fatalf("verify: %v", err)
		}
		if c.ObjectID != DefaultPrincipal {
			t.Fatalf("oid = %q, want %q", c.ObjectID, DefaultPrincipal)
		}
		c.ObjectID = "changed by a caller" // must not reach the next caller
	}
	if len(v.verified.claims) != 1 {
		t.Fatalf("%d tokens remembered, want 1", len(v.verified.claims))
	}
	now = now.Add(2 * time.Minute)
	if _, err := v.Verify(context.Background(), "Bearer "+tok); !errors.Is(err, ErrExpired) {
		t.Fatalf("remembered token after its expiry: %v, want %v", err, ErrExpired)
	}
	if len(v.verified.claims) != 0 {
		t.Fatalf("an expired token is still remembered")
	}
	tampered := tok[:len(tok)-4] + "AAAA"
	for range 2 {
		if _, err := v.Verify(context.Background(), "Bearer "+tampered); !errors.Is(err, ErrInvalid) {
			t.Fatalf("tampered token: %v, want %v", err, ErrInvalid)
		}
	}
}
