// Package auth mints and validates the Entra-shaped bearer tokens the
// emulator accepts.
//
// Tokens are RS256 JWTs signed with a key the emulator owns (kept under its
// data directory so tokens survive a restart). They carry the claims Fabric
// clients see in real Entra tokens: oid (the principal id the emulator uses
// for workspace roles), tid, aud, scp, iat, nbf and exp.
package auth

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Audiences Fabric accepts: the Fabric API and the Power BI API.
const (
	AudienceFabric  = "https://api.fabric.microsoft.com"
	AudiencePowerBI = "https://analysis.windows.net/powerbi/api"
)

// DefaultPrincipal is the oid of tokens minted without an explicit principal.
const DefaultPrincipal = "00000000-0000-0000-0000-00000000a11c"

// TenantID is the tid claim of every minted token.
const TenantID = "00000000-0000-0000-0000-0000000000f1"

// DefaultTTL is how long a minted token is valid unless asked otherwise.
const DefaultTTL = time.Hour

// Sentinel errors returned by Verify; callers map them to Fabric codes.
var (
	// ErrMissing means no bearer token was presented.
	ErrMissing = errors.New("no bearer token")
	// ErrExpired means the token's exp is in the past.
	ErrExpired = errors.New("token expired")
	// ErrInvalid means the token is malformed, badly signed or for another audience.
	ErrInvalid = errors.New("token invalid")
)

// Claims are the claims of an emulator token.
type Claims struct {
	ObjectID string `json:"oid"`
	TenantID string `json:"tid"`
	Name     string `json:"name,omitempty"`
	Scope    string `json:"scp,omitempty"`
	jwt.RegisteredClaims
}

// MintOptions tune Mint. The zero value mints a one-hour Fabric token for
// DefaultPrincipal.
type MintOptions struct {
	Principal string        // oid; DefaultPrincipal when empty
	Name      string        // display name claim
	Audience  string        // AudienceFabric when empty
	TTL       time.Duration // DefaultTTL when zero; negative mints an already expired token
}

// Issuer signs and verifies tokens with one RSA key.
type Issuer struct {
	key *rsa.PrivateKey
	kid string
	now func() time.Time
}

// NewIssuer returns an Issuer with a fresh in-memory key.
func NewIssuer() (*Issuer, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("generate signing key: %w", err)
	}
	return newIssuer(key), nil
}

// LoadIssuer returns an Issuer whose key lives in dir/token-signing-key.pem,
// creating the key on first use so tokens stay valid across restarts.
func LoadIssuer(dir string) (*Issuer, error) {
	path := filepath.Join(dir, "token-signing-key.pem")
	if b, err := os.ReadFile(path); err == nil {
		blk, _ := pem.Decode(b)
		if blk == nil {
			return nil, fmt.Errorf("read signing key %s: no PEM block", path)
		}
		key, err := x509.ParsePKCS1PrivateKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse signing key %s: %w", path, err)
		}
		return newIssuer(key), nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read signing key: %w", err)
	}
	iss, err := NewIssuer()
	if err != nil {
		return nil, err
	}
	b := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(iss.key)})
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return nil, fmt.Errorf("write signing key: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("write signing key: %w", err)
	}
	return iss, nil
}

// IssuerFromKey returns an Issuer that signs with key.
func IssuerFromKey(key *rsa.PrivateKey) *Issuer { return newIssuer(key) }

func newIssuer(key *rsa.PrivateKey) *Issuer {
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	return &Issuer{key: key, kid: uuid.NewSHA1(uuid.NameSpaceOID, der).String()[:8], now: time.Now}
}

// Mint returns a signed token and its expiry.
func (i *Issuer) Mint(o MintOptions) (string, time.Time, error) {
	if o.Principal == "" {
		o.Principal = DefaultPrincipal
	}
	if o.Audience == "" {
		o.Audience = AudienceFabric
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	now := i.now()
	exp := now.Add(o.TTL)
	c := Claims{
		ObjectID: o.Principal,
		TenantID: TenantID,
		Name:     o.Name,
		Scope:    "Workspace.ReadWrite.All Item.ReadWrite.All Item.Execute.All",
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    "https://sts.windows.net/" + TenantID + "/",
			Subject:   o.Principal,
			Audience:  jwt.ClaimStrings{o.Audience},
			IssuedAt:  jwt.NewNumericDate(now.Add(-time.Minute)),
			NotBefore: jwt.NewNumericDate(now.Add(-time.Minute)),
			ExpiresAt: jwt.NewNumericDate(exp),
			ID:        uuid.NewString(),
		},
	}
	if o.TTL < 0 { // an expired token must still have iat/nbf before exp
		c.IssuedAt = jwt.NewNumericDate(exp.Add(-time.Hour))
		c.NotBefore = c.IssuedAt
	}
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	t.Header["kid"] = i.kid
	s, err := t.SignedString(i.key)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("sign token: %w", err)
	}
	return s, exp, nil
}

// Verify checks an Authorization header value ("Bearer <jwt>") and returns
// the token's claims. The error wraps ErrMissing, ErrExpired or ErrInvalid.
func (i *Issuer) Verify(authorization string) (*Claims, error) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(authorization), " ")
	if authorization == "" {
		return nil, ErrMissing
	}
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return nil, fmt.Errorf("%w: the Authorization header must be 'Bearer <token>'", ErrInvalid)
	}
	var c Claims
	_, err := jwt.ParseWithClaims(strings.TrimSpace(tok), &c, func(*jwt.Token) (any, error) { return &i.key.PublicKey, nil },
		jwt.WithValidMethods([]string{"RS256"}),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(i.now),
	)
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return nil, fmt.Errorf("%w: %v", ErrExpired, err)
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	audOK := false
	for _, a := range c.Audience {
		a = strings.TrimSuffix(a, "/")
		if a == AudienceFabric || a == AudiencePowerBI {
			audOK = true
		}
	}
	if !audOK {
		return nil, fmt.Errorf("%w: audience %v is neither %s nor %s", ErrInvalid, []string(c.Audience), AudienceFabric, AudiencePowerBI)
	}
	if _, err := uuid.Parse(c.ObjectID); err != nil {
		return nil, fmt.Errorf("%w: oid claim %q is not a GUID", ErrInvalid, c.ObjectID)
	}
	return &c, nil
}
