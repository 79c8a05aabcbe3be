// Package auth mints and validates the Entra-shaped bearer tokens the
// emulator accepts.
//
// Tokens are RS256 JWTs signed with a key the emulator owns (kept under its
// data directory so tokens survive a restart). They carry the claims Fabric
// clients see in real Entra tokens: oid (the principal id the emulator uses
// for workspace roles), tid, aud, iat, nbf and exp; user tokens (the
// emulator-native POST /_emulator/token) carry scp, application tokens (the
// client-credentials grant of the Entra token service) carry appid,
// appidacr and idtyp=app.
//
// Application tokens are Entra v1.0 access tokens (ver "1.0", iss
// https://sts.windows.net/{tid}/): Fabric, Power BI, Azure Storage and
// Kusto are resources whose tokens Entra issues in the v1.0 format, whichever
// endpoint (v1 or v2) the client asked. Microsoft's access-token claims
// reference lists appid and appidacr as v1.0 claims and azp/azpacr as their
// v2.0 replacements, so the emulator's tokens carry appid, not azp; a v2.0
// token from a trusted issuer is read by azp.
//
// A Verifier accepts the emulator's own tokens and, with TrustedIssuer,
// tokens signed by another OpenID issuer's keys (its discovery document's
// jwks_uri, fetched, cached and refreshed on an unknown key id).
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
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Audiences Fabric accepts (the Fabric API and the Power BI API), and the
// other resources the Entra token service issues tokens for.
const (
	AudienceFabric  = "https://api.fabric.microsoft.com"
	AudiencePowerBI = "https://analysis.windows.net/powerbi/api"
	AudienceStorage = "https://storage.azure.com"
	AudienceKusto   = "https://kusto.kusto.windows.net"
	// AudienceEventHubs is the audience of Entra tokens the Event Hubs
	// SDKs put on $cbs (scope https://eventhubs.azure.net/.default).
	AudienceEventHubs = "https://eventhubs.azure.net"
)

// DefaultPrincipal is the oid of tokens minted without an explicit principal.
const DefaultPrincipal = "00000000-0000-0000-0000-00000000a11c"

// TenantID is the emulator's default tenant: the tid claim of tokens
// minted without another tenant.
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

// Claims are the claims of an emulator token (and those read from a
// trusted issuer's token).
type Claims struct {
	ObjectID string `json:"oid"`
	TenantID string `json:"tid"`
	Name     string `json:"name,omitempty"`
	Scope    string `json:"scp,omitempty"`
	// AppID is the client id of an application token (v1.0 tokens).
	AppID string `json:"appid,omitempty"`
	// AppIDACR is how the application authenticated: "1" for a secret.
	AppIDACR string `json:"appidacr,omitempty"`
	// AuthorizedParty is the client id in v2.0 tokens (trusted issuers).
	AuthorizedParty string `json:"azp,omitempty"`
	// IDType is "app" for application tokens.
	IDType string `json:"idtyp,omitempty"`
	// IdP is the identity provider (the issuer, for application tokens).
	IdP string `json:"idp,omitempty"`
	// Version is the token format: "1.0" or "2.0".
	Version string `json:"ver,omitempty"`
	// TokenID is Entra's per-token identifier.
	TokenID string `json:"uti,omitempty"`
	jwt.RegisteredClaims
}

// MintOptions tune Mint. The zero value mints a one-hour Fabric token for
// DefaultPrincipal.
type MintOptions struct {
	Principal string        // oid; DefaultPrincipal when empty
	Name      string        // display name claim
	Audience  string        // AudienceFabric when empty
	TTL       time.Duration // DefaultTTL when zero; negative mints an already expired token
	// AppID, when set, mints an application token (client credentials):
	// appid, appidacr "1", idtyp "app", no scp.
	AppID string
	// Tenant is the tid claim (TenantID when empty).
	Tenant string
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

// KeyID is the kid header of the tokens this Issuer signs.
func (i *Issuer) KeyID() string { return i.kid }

// SetClock replaces the Issuer's clock (tests).
func (i *Issuer) SetClock(now func() time.Time) { i.now = now }
