// Package storetest makes Java key and trust stores (JKS and PKCS12) from PEM
// the way a Java-minded team makes them: with the JDK's keytool and with
// openssl. Tests of the stores' readers use it; it needs both commands.
package storetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Stores are the files Make writes, all with the same store password; the
// JKS key store's key has a password of its own.
type Stores struct {
	// TrustJKS and TrustPKCS12 hold the CA as a trusted certificate entry.
	TrustJKS, TrustPKCS12 string
	// KeyPKCS12OpenSSL is the client key and chain as openssl exports them;
	// KeyPKCS12 the same store rewritten by keytool; KeyJKS a JKS store
	// whose key entry has KeyPassword.
	KeyPKCS12OpenSSL, KeyPKCS12, KeyJKS string
	// Password opens every store; KeyPassword the JKS store's key.
	Password, KeyPassword string
}

// Make writes the stores for caPEM and the client's certPEM and keyPEM
// into a temporary directory of t.
func Make(t testing.TB, caPEM, certPEM, keyPEM string) Stores {
	t.Helper()
	dir := t.TempDir()
	s := Stores{Password: "store-secret", KeyPassword: "key-secret",
		TrustJKS: filepath.Join(dir, "trust.jks"), TrustPKCS12: filepath.Join(dir, "trust.p12"),
		KeyPKCS12OpenSSL: filepath.Join(dir, "client-openssl.p12"), KeyPKCS12: filepath.Join(dir, "client.p12"),
		KeyJKS: filepath.Join(dir, "client.jks")}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ca, cert, key := write("ca.pem", caPEM), write("client.pem", certPEM), write("client-key.pem", keyPEM)
	for _, typ := range []string{"JKS", "PKCS12"} {
		dest := map[string]string{"JKS": s.TrustJKS, "PKCS12": s.TrustPKCS12}[typ]
		run(t, "keytool", "-importcert", "-noprompt", "-alias", "ca", "-file", ca,
			"-keystore", dest, "-storetype", typ, "-storepass", s.Password)
	}
	run(t, "openssl", "pkcs12", "-export", "-in", cert, "-inkey", key, "-certfile", ca, "-name", "client",
		"-out", s.KeyPKCS12OpenSSL, "-passout", "pass:"+s.Password)
	run(t, "keytool", "-importkeystore", "-noprompt", "-srckeystore", s.KeyPKCS12OpenSSL, "-srcstoretype", "PKCS12",
		"-srcstorepass", s.Password, "-destkeystore", s.KeyPKCS12, "-deststoretype", "PKCS12", "-deststorepass", s.Password)
	run(t, "keytool", "-importkeystore", "-noprompt", "-srckeystore", s.KeyPKCS12OpenSSL, "-srcstoretype", "PKCS12",
		"-srcstorepass", s.Password, "-srcalias", "client", "-destkeystore", s.KeyJKS, "-deststoretype", "JKS",
		"-deststorepass", s.Password, "-destkeypass", s.KeyPassword)
	return s
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}
