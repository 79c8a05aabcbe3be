package auth

import (
	"fmt"

	"github.com/MicahParks/jwkset"
)

// JWKS is the Issuer's public key as a JSON Web Key Set, the document an
// OpenID jwks_uri answers.
func (i *Issuer) JWKS() (jwkset.JWKSMarshal, error) {
	jwk, err := jwkset.NewJWKFromKey(&i.key.PublicKey, jwkset.JWKOptions{
		Metadata: jwkset.JWKMetadataOptions{KID: i.kid, USE: jwkset.UseSig, ALG: jwkset.AlgRS256},
	})
	if err != nil {
		return jwkset.JWKSMarshal{}, fmt.Errorf("encode signing key: %w", err)
	}
	return jwkset.JWKSMarshal{Keys: []jwkset.JWKMarshal{jwk.Marshal()}}, nil
}
