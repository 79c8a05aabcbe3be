// Package oidctest is a tiny OpenID issuer for tests: a discovery document
// and a JWKS over httptest, and tokens signed with its current key (RS256
// or ES256). Rotate replaces the key, as an issuer's key rollover does.
package oidctest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Issuer is a test OpenID issuer.
type Issuer struct {
	srv *httptest.Server
	alg jwt.SigningMethod
	mu  sync.Mutex
	key crypto.Signer
	kid string
	// KeyFetches counts the JWKS requests.
	KeyFetches atomic.Int64
	// Issuer overrides the discovery document's issuer (default: URL()).
	Issuer string
}

// New starts an issuer signing with alg ("RS256" or "ES256").
func New(alg string) (*Issuer, error) {
	i := &Issuer{}
	switch alg {
	case "RS256":
		i.alg = jwt.SigningMethodRS256
	case "ES256":
		i.alg = jwt.SigningMethodES256
	default:
		return nil, fmt.Errorf("oidctest: unsupported alg %q", alg)
	}
	if err := i.Rotate(); err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", i.discovery)
	mux.HandleFunc("GET /keys", i.keys)
	i.srv = httptest.NewServer(mux)
	return i, nil
}

// URL is the issuer's URL (its discovery document is under it).
func (i *Issuer) URL() string { return i.srv.URL }

// Close stops the issuer.
func (i *Issuer) Close() { i.srv.Close() }

// Rotate replaces the signing key (and its kid).
func (i *Issuer) Rotate() error {
	var key crypto.Signer
	var err error
	if i.alg == jwt.SigningMethodRS256 {
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	} else {
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	if err != nil {
		return fmt.Errorf("oidctest: generate key: %w", err)
	}
	i.mu.Lock()
	i.key, i.kid = key, uuid.NewString()
	i.mu.Unlock()
	return nil
}

// Mint signs claims with the current key.
func (i *Issuer) Mint(claims jwt.MapClaims) (string, error) {
	i.mu.Lock()
	key, kid := i.key, i.kid
	i.mu.Unlock()
	t := jwt.NewWithClaims(i.alg, claims)
	t.Header["kid"] = kid
	return t.SignedString(key)
}

func (i *Issuer) issuer() string {
	if i.Issuer != "" {
		return i.Issuer
	}
	return i.srv.URL
}

func (i *Issuer) discovery(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"issuer": i.issuer(), "jwks_uri": i.srv.URL + "/keys"})
}

func (i *Issuer) keys(w http.ResponseWriter, _ *http.Request) {
	i.KeyFetches.Add(1)
	i.mu.Lock()
	key, kid := i.key, i.kid
	i.mu.Unlock()
	alg := jwkset.AlgRS256
	if i.alg == jwt.SigningMethodES256 {
		alg = jwkset.AlgES256
	}
	jwk, err := jwkset.NewJWKFromKey(key.Public(), jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: kid, USE: jwkset.UseSig, ALG: alg}})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(jwkset.JWKSMarshal{Keys: []jwkset.JWKMarshal{jwk.Marshal()}})
}
