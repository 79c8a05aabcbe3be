package auth

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/auth/oidctest"
	"github.com/golang-jwt/jwt/v5"
)

// These tests follow OpenID Connect Discovery 1.0 (issuer, jwks_uri) and
// Microsoft's "Access tokens: validate tokens"
// (learn.microsoft.com/entra/identity-platform/access-tokens#validate-tokens):
// the signature by a key of the issuer's JWKS, the issuer, the audience and
// the lifetime; keys roll over, so an unknown kid refetches the JWKS.

const spOID = "3f2e1d0c-4b5a-6978-8a9b-0c1d2e3f4a5b"

func startIssuer(t *testing.T, alg string) *oidctest.Issuer {
	t.Helper()
	o, err := oidctest.New(alg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(o.Close)
	return o
}

func claimsFor(iss, aud string, exp time.Time) jwt.MapClaims {
	return jwt.MapClaims{"iss": iss, "aud": aud, "oid": spOID, "tid": TenantID, "exp": exp.Unix(), "iat": time.Now().Unix(), "azp": "c1", "ver": "2.0"}
}

func verifierTrusting(t *testing.T, urls ...string) (*Verifier, *Issuer) {
	t.Helper()
	own, err := NewIssuer()
	if err != nil {
		t.Fatal(err)
	}
	var ts []*TrustedIssuer
	for _, u := range urls {
		tr, err := NewTrustedIssuer(u, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tr.Close)
		ts = append(ts, tr)
	}
	return NewVerifier(own, ts...), own
}

func TestTrustedIssuerTokens(t *testing.T) {
	for _, alg := range []string{"RS256", "ES256"} {
		t.Run(alg, func(t *testing.T) {
			o := startIssuer(t, alg)
			v, own := verifierTrusting(t, o.URL())
			tok, _ := o.Mint(claimsFor(o.URL(), AudienceFabric, time.Now().Add(time.Hour)))
			c, err := v.Verify(context.Background(), "Bearer "+tok)
			if err != nil || c.ObjectID != spOID || c.AuthorizedParty != "c1" {
				t.Fatalf("trusted token: %v %+v", err, c)
			}
			mine, _, _ := own.Mint(MintOptions{})
			if _, err := v.Verify(context.Background(), "Bearer "+mine); err != nil {
				t.Fatalf("own token refused beside a trusted issuer: %v", err)
			}
			expired, _ := o.Mint(claimsFor(o.URL(), AudienceFabric, time.Now().Add(-time.Minute)))
			if _, err := v.Verify(context.Background(), "Bearer "+expired); !errors.Is(err, ErrExpired) {
				t.Fatalf("expired trusted token: %v", err)
			}
			storage, _ := o.Mint(claimsFor(o.URL(), AudienceStorage, time.Now().Add(time.Hour)))
			if _, err := v.Verify(context.Background(), "Bearer "+storage); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "audience") {
				t.Fatalf("wrong audience: %v", err)
			}
		})
	}
}

func TestUntrustedIssuer(t *testing.T) {
	trusted, other := startIssuer(t, "RS256"), startIssuer(t, "RS256")
	v, _ := verifierTrusting(t, trusted.URL())
	tok, _ := other.Mint(claimsFor(other.URL(), AudienceFabric, time.Now().Add(time.Hour)))
	_, err := v.Verify(context.Background(), "Bearer "+tok)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "does not trust") || !strings.Contains(err.Error(), other.URL()) {
		t.Fatalf("untrusted issuer: %v", err)
	}
	// A token claiming the trusted issuer but signed by another key.
	forged, _ := other.Mint(claimsFor(trusted.URL(), AudienceFabric, time.Now().Add(time.Hour)))
	if _, err := v.Verify(context.Background(), "Bearer "+forged); !errors.Is(err, ErrInvalid) {
		t.Fatalf("forged token: %v", err)
	}
	none, _ := verifierTrusting(t)
	if _, err := none.Verify(context.Background(), "Bearer "+tok); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "--trusted-issuer") {
		t.Fatalf("no trusted issuers: %v", err)
	}
}

func TestTrustedIssuerKeyRollover(t *testing.T) {
	o := startIssuer(t, "RS256")
	v, _ := verifierTrusting(t, o.URL())
	first, _ := o.Mint(claimsFor(o.URL(), AudienceFabric, time.Now().Add(time.Hour)))
	if _, err := v.Verify(context.Background(), "Bearer "+first); err != nil {
		t.Fatal(err)
	}
	fetches := o.KeyFetches.Load()
	if err := o.Rotate(); err != nil {
		t.Fatal(err)
	}
	second, _ := o.Mint(claimsFor(o.URL(), AudienceFabric, time.Now().Add(time.Hour)))
	if _, err := v.Verify(context.Background(), "Bearer "+second); err != nil {
		t.Fatalf("token of the new key: %v", err)
	}
	if o.KeyFetches.Load() != fetches+1 {
		t.Fatalf("JWKS fetched %d times after the rollover, want once", o.KeyFetches.Load()-fetches)
	}
}

func TestTrustedIssuerUnreachable(t *testing.T) {
	o := startIssuer(t, "RS256")
	v, _ := verifierTrusting(t, "http://127.0.0.1:1/nowhere")
	tok, _ := o.Mint(claimsFor(o.URL(), AudienceFabric, time.Now().Add(time.Hour)))
	_, err := v.Verify(context.Background(), "Bearer "+tok)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "discovery document") {
		t.Fatalf("unreachable issuer: %v", err)
	}
}

func TestIssuerMatches(t *testing.T) {
	const tid = "5b8f0a2c-1d3e-4f60-8a7b-9c0d1e2f3a4b"
	for _, tc := range []struct {
		doc, iss string
		want     bool
	}{
		{"https://login.example/" + tid + "/v2.0", "https://login.example/" + tid + "/v2.0", true},
		{"https://login.example/" + tid + "/v2.0", "https://sts.windows.net/" + tid + "/", true},
		{"https://login.example/{tenantid}/v2.0", "https://login.example/" + tid + "/v2.0", true},
		{"https://login.example/{tenantid}/v2.0", "https://sts.windows.net/" + tid + "/", true},
		{"https://login.example/" + tid + "/v2.0", "https://sts.windows.net/00000000-0000-0000-0000-000000000001/", false},
		{"https://sts.windows.net/" + tid + "/", "https://sts.windows.net/" + tid + "/", true},
		{"https://issuer.example", "https://sts.windows.net/" + tid + "/", false},
		{"https://issuer.example", "", false},
	} {
		if got := issuerMatches(tc.doc, tc.iss, tid); got != tc.want {
			t.Errorf("issuerMatches(%q, %q) = %v", tc.doc, tc.iss, got)
		}
	}
}
