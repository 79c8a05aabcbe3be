package kafkaconfig

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"

	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"
)

// Store types, as ssl.truststore.type and ssl.keystore.type name them.
const (
	storePEM    = "PEM"
	storeJKS    = "JKS"
	storePKCS12 = "PKCS12"
)

// storeKind reads key (ssl.truststore.type or ssl.keystore.type): PEM, JKS
// or PKCS12; unset, a store file is JKS, Kafka's default, and inline PEM
// values are PEM.
func storeKind(p Properties, key string, inline bool) (string, error) {
	v, ok := p[key]
	switch t := strings.ToUpper(strings.TrimSpace(v)); {
	case !ok && inline:
		return "", keyErr(key, "required: PEM for inline certificates and keys")
	case !ok:
		return storeJKS, nil
	case t == storePEM, t == storeJKS, t == storePKCS12:
		if inline && t != storePEM {
			return "", keyErr(key, "%s: inline certificates and keys are PEM; a %s store is a file (the .location key)", t, t)
		}
		return t, nil
	default:
		return "", keyErr(key, "%q is not PEM, JKS or PKCS12", v)
	}
}

// passwordFor checks that a store password is given exactly when the store
// has one: PEM stores have none, JKS and PKCS12 stores need theirs.
func passwordFor(p Properties, kind, key string) (string, error) {
	pw, ok := p[key]
	switch {
	case kind == storePEM && ok:
		return "", keyErr(key, "is set but the store is PEM, which has no password")
	case kind != storePEM && !ok:
		return "", keyErr(key, "required to open a %s store", kind)
	}
	return pw, nil
}

// readStore reads the store file that key names; a PEM file read as the
// default JKS store names the type key to set.
func readStore(p Properties, key, typeKey, kind, path string) ([]byte, error) {
	b, err := os.ReadFile(strings.TrimSpace(path))
	if err != nil {
		return nil, keyErr(key, "read: %v", err)
	}
	if kind != storePEM && bytes.HasPrefix(bytes.TrimSpace(b), []byte("-----BEGIN")) {
		how := "unset, so JKS (Kafka's default)"
		if _, ok := p[typeKey]; ok {
			how = kind
		}
		return nil, keyErr(typeKey, "is %s, but %s is a PEM file; set %s=PEM", how, key, typeKey)
	}
	return b, nil
}

// strayPassword refuses a store password set without its store.
func strayPassword(p Properties, key, storeKey string) error {
	if _, ok := p[key]; ok {
		return keyErr(key, "is set without %s", storeKey)
	}
	return nil
}

// keyErrOnce names key in err unless err already names a key.
func keyErrOnce(key string, err error) error {
	if strings.HasPrefix(err.Error(), "kafka config ") {
		return err
	}
	return keyErr(key, "%v", err)
}

// trustedCerts opens a JKS or PKCS12 trust store and returns its trusted
// certificates as PEM; a wrong password names passwordKey.
func trustedCerts(kind string, data []byte, password, passwordKey string) (string, error) {
	var certs []*x509.Certificate
	switch kind {
	case storePKCS12:
		var err error
		if certs, err = pkcs12.DecodeTrustStore(data, password); err != nil {
			return "", storeOpenErr(passwordKey, kind, err)
		}
	case storeJKS:
		ks, err := loadJKS(data, password, passwordKey)
		if err != nil {
			return "", err
		}
		for _, alias := range ks.Aliases() {
			if !ks.IsTrustedCertificateEntry(alias) {
				continue
			}
			e, err := ks.GetTrustedCertificateEntry(alias)
			if err != nil {
				return "", fmt.Errorf("read entry %q: %w", alias, err)
			}
			cert, err := x509.ParseCertificate(e.Certificate.Content)
			if err != nil {
				return "", fmt.Errorf("parse entry %q: %w", alias, err)
			}
			certs = append(certs, cert)
		}
	}
	if len(certs) == 0 {
		return "", fmt.Errorf("the %s store holds no trusted certificate", kind)
	}
	return certsPEM(certs), nil
}

// keyPair opens a JKS or PKCS12 key store and returns its one private key
// (PKCS#8) and certificate chain as PEM.
func keyPair(kind string, data []byte, storePW, keyPW string) (chainPEM, keyPEM string, err error) {
	if kind == storePKCS12 {
		if keyPW != storePW {
			return "", "", keyErr("ssl.key.password", "differs from ssl.keystore.password; a PKCS12 store's key is opened with the store's password")
		}
		key, leaf, cas, err := pkcs12.DecodeChain(data, storePW)
		if err != nil {
			return "", "", storeOpenErr("ssl.keystore.password", kind, err)
		}
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return "", "", keyErr("ssl.keystore.location", "encode key: %v", err)
		}
		return certsPEM(append([]*x509.Certificate{leaf}, cas...)), pemBlock("PRIVATE KEY", der), nil
	}
	ks, err := loadJKS(data, storePW, "ssl.keystore.password")
	if err != nil {
		return "", "", err
	}
	var aliases []string
	for _, a := range ks.Aliases() {
		if ks.IsPrivateKeyEntry(a) {
			aliases = append(aliases, a)
		}
	}
	if len(aliases) != 1 {
		return "", "", keyErr("ssl.keystore.location", "holds %d private keys (%s); give a store with exactly one", len(aliases), strings.Join(aliases, ", "))
	}
	e, err := ks.GetPrivateKeyEntry(aliases[0], []byte(keyPW))
	if err != nil {
		return "", "", keyErr("ssl.key.password", "does not open the key %q: %v", aliases[0], err)
	}
	var chain strings.Builder
	for _, c := range e.CertificateChain {
		chain.WriteString(pemBlock("CERTIFICATE", c.Content))
	}
	return chain.String(), pemBlock("PRIVATE KEY", e.PrivateKey), nil
}

// loadJKS opens a JKS store; its integrity check is what a wrong password
// fails.
func loadJKS(data []byte, password, passwordKey string) (keystore.KeyStore, error) {
	ks := keystore.New()
	if err := ks.Load(bytes.NewReader(data), []byte(password)); err != nil {
		return ks, storeOpenErr(passwordKey, storeJKS, err)
	}
	return ks, nil
}

// storeOpenErr words a store that does not open: most often the password.
func storeOpenErr(passwordKey, kind string, err error) error {
	if errors.Is(err, pkcs12.ErrIncorrectPassword) || strings.Contains(err.Error(), "digest") {
		return keyErr(passwordKey, "does not open the %s store (wrong password)", kind)
	}
	return keyErr(passwordKey, "open the %s store: %v (is the file a %s store?)", kind, err, kind)
}

func pemBlock(typ string, der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

func certsPEM(certs []*x509.Certificate) string {
	var b strings.Builder
	for _, c := range certs {
		b.WriteString(pemBlock("CERTIFICATE", c.Raw))
	}
	return b.String()
}
