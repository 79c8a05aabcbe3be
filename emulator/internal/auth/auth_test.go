package auth

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestMintVerify(t *testing.T) {
	iss, err := LoadIssuer(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := iss.Mint(MintOptions{Principal: "11111111-2222-3333-4444-555555555555"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := iss.Verify("Bearer " + tok)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if c.ObjectID != "11111111-2222-3333-4444-555555555555" {
		t.Fatalf("oid = %q", c.ObjectID)
	}
	pbi, _, _ := iss.Mint(MintOptions{Audience: AudiencePowerBI})
	if _, err := iss.Verify("bearer " + pbi); err != nil {
		t.Fatalf("power bi audience refused: %v", err)
	}
}

func TestVerifyFailures(t *testing.T) {
	iss, _ := NewIssuer()
	other, _ := NewIssuer()
	expired, _, _ := iss.Mint(MintOptions{TTL: -time.Minute})
	foreign, _, _ := other.Mint(MintOptions{})
	wrongAud, _, _ := iss.Mint(MintOptions{Audience: "https://storage.azure.com"})
	good, _, _ := iss.Mint(MintOptions{})
	tampered := good[:len(good)-4] + "AAAA"
	for _, tc := range []struct {
		name, header string
		want         error
	}{
		{"missing", "", ErrMissing},
		{"basic scheme", "Basic abc", ErrInvalid},
		{"no token", "Bearer ", ErrInvalid},
		{"garbage", "Bearer not.a.jwt", ErrInvalid},
		{"expired", "Bearer " + expired, ErrExpired},
		{"other key", "Bearer " + foreign, ErrInvalid},
		{"wrong audience", "Bearer " + wrongAud, ErrInvalid},
		{"tampered signature", "Bearer " + tampered, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := iss.Verify(tc.header)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify(%q) = %v, want %v", tc.header, err, tc.want)
			}
		})
	}
}

func TestLoadIssuerKeepsKey(t *testing.T) {
	dir := t.TempDir()
	a, _ := LoadIssuer(dir)
	tok, _, _ := a.Mint(MintOptions{})
	b, err := LoadIssuer(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Verify("Bearer " + tok); err != nil {
		t.Fatalf("token from before the restart refused: %v", err)
	}
	if !strings.Contains(tok, ".") {
		t.Fatal("not a JWT")
	}
}
