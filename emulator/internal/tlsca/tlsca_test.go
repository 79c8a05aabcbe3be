package tlsca

import (
	"bytes"
	"crypto/x509"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// verify checks that m's server certificate chains to its CA for name, as
// a TLS client does (RFC 5280 path validation, RFC 6125 name matching).
func verify(t *testing.T, m *Material, name string, now time.Time) error {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(m.CAPEM) {
		t.Fatal("CAPEM holds no certificate")
	}
	_, err := m.Cert.Leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: name, CurrentTime: now,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err
}

// TestNames: the server certificate names localhost, 127.0.0.1, ::1 and the
// extra names (host names lowercased, IPs canonical), and nothing else.
func TestNames(t *testing.T) {
	m, err := Load(Options{Names: []string{"Emulator.Test", "10.0.0.7", "[::1]", "emulator.test", "fabric"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"localhost", "127.0.0.1", "::1", "10.0.0.7", "emulator.test", "fabric"}
	if !equal(m.Names, want) || !equal(sans(m.Cert.Leaf), want) {
		t.Fatalf("names %v, certificate %v; want %v", m.Names, sans(m.Cert.Leaf), want)
	}
	for _, n := range want {
		if err := verify(t, m, n, time.Now()); err != nil {
			t.Errorf("verify for %s: %v", n, err)
		}
	}
	if err := verify(t, m, "other.test", time.Now()); err == nil {
		t.Error("the certificate verifies for a name it does not carry")
	}
	if !m.Made || m.Cert.Leaf.IsCA {
		t.Errorf("Made %v, IsCA %v; want a made leaf", m.Made, m.Cert.Leaf.IsCA)
	}
}

// TestBadNames: a name with a port or a character no host name has is refused.
func TestBadNames(t *testing.T) {
	for _, n := range []string{"host:9093", "a b", "x/y"} {
		if _, err := Load(Options{Names: []string{n}}); err == nil || !strings.Contains(err.Error(), n) {
			t.Errorf("name %q: err %v, want one naming it", n, err)
		}
	}
}

// TestReuseAcrossRestarts: a second Load of the same directory reuses CA
// and server certificate; the files have the documented modes.
func TestReuseAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	a, err := Load(Options{Dir: dir, Names: []string{"fabric"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(Options{Dir: dir, Names: []string{"FABRIC"}})
	if err != nil {
		t.Fatal(err)
	}
	if b.Made || !bytes.Equal(a.CAPEM, b.CAPEM) || !bytes.Equal(a.Cert.Certificate[0], b.Cert.Certificate[0]) {
		t.Fatalf("restart made new material (Made %v)", b.Made)
	}
	onDisk, _ := os.ReadFile(filepath.Join(dir, CAFile))
	if !bytes.Equal(onDisk, a.CAPEM) {
		t.Fatal("ca.pem differs from CAPEM")
	}
	for name, mode := range map[string]os.FileMode{CAFile: 0o600, CAKeyFile: 0o600, ServerFile: 0o600, ServerKeyFile: 0o600} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: %v, mode %v; want %v", name, err, st.Mode().Perm(), mode)
		}
	}
}

// TestRegenerateOnNameChange: other names make a new server certificate
// signed by the same CA; the CA is kept.
func TestRegenerateOnNameChange(t *testing.T) {
	dir := t.TempDir()
	a, err := Load(Options{Dir: dir, Names: []string{"one.test"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(Options{Dir: dir, Names: []string{"one.test", "two.test"}})
	if err != nil {
		t.Fatal(err)
	}
	if !b.Made || bytes.Equal(a.Cert.Certificate[0], b.Cert.Certificate[0]) {
		t.Fatal("the server certificate was not made again for new names")
	}
	if !bytes.Equal(a.CAPEM, b.CAPEM) {
		t.Fatal("the CA changed with the names")
	}
	if err := verify(t, b, "two.test", time.Now()); err != nil {
		t.Fatal(err)
	}
	c, err := Load(Options{Dir: dir, Names: []string{"two.test", "one.test"}})
	if err != nil || c.Made {
		t.Fatalf("same names in another order: Made %v, err %v; want reuse", c.Made, err)
	}
}

// TestRenewBeforeExpiry: 30 days before its end the server certificate is
// made again; the CA (10 years) stays.
func TestRenewBeforeExpiry(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, err := Load(Options{Dir: dir, Now: func() time.Time { return start }})
	if err != nil {
		t.Fatal(err)
	}
	later := a.Cert.Leaf.NotAfter.Add(-29 * 24 * time.Hour)
	b, err := Load(Options{Dir: dir, Now: func() time.Time { return later }})
	if err != nil {
		t.Fatal(err)
	}
	if !b.Made || !bytes.Equal(a.CAPEM, b.CAPEM) {
		t.Fatalf("Made %v, same CA %v; want a new leaf under the same CA", b.Made, bytes.Equal(a.CAPEM, b.CAPEM))
	}
	if err := verify(t, b, "localhost", later); err != nil {
		t.Fatal(err)
	}
}

// TestForeignServerCertReplaced: a server certificate another CA signed
// (a data dir whose ca.pem was replaced) is made again under the kept CA.
func TestForeignServerCertReplaced(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, CAFile))
	os.Remove(filepath.Join(dir, CAKeyFile))
	b, err := Load(Options{Dir: dir})
	if err != nil || !b.Made {
		t.Fatalf("Made %v, err %v; want a new leaf", b.Made, err)
	}
	if err := verify(t, b, "localhost", time.Now()); err != nil {
		t.Fatal(err)
	}
}

// TestOwnCertificate: --tls-cert/--tls-key load as they are, with no CA.
func TestOwnCertificate(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(Options{Dir: dir, Names: []string{"own.test"}}); err != nil {
		t.Fatal(err)
	}
	m, err := Load(Options{CertFile: filepath.Join(dir, ServerFile), KeyFile: filepath.Join(dir, ServerKeyFile)})
	if err != nil {
		t.Fatal(err)
	}
	if m.CAPEM != nil || !slices.Contains(m.Names, "own.test") {
		t.Fatalf("CAPEM %q, names %v", m.CAPEM, m.Names)
	}
	if _, err := Load(Options{CertFile: filepath.Join(dir, ServerFile)}); err == nil {
		t.Fatal("a certificate without a key loaded")
	}
	if _, err := Load(Options{CertFile: filepath.Join(dir, CAFile), KeyFile: filepath.Join(dir, ServerKeyFile)}); err == nil {
		t.Fatal("a key that does not match loaded")
	}
}

// TestCorruptFiles: a CA file that is not PEM is an error naming it, not
// a silent new CA that clients would not trust.
func TestCorruptFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, CAFile), []byte("garbage"), 0o644)
	if _, err := Load(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), CAFile) {
		t.Fatalf("err %v, want one naming %s", err, CAFile)
	}
}

// TestWithNames: a name added at run time (an advertised host) makes a new
// server certificate under the same CA, in memory as in a directory; a
// name it carries already changes nothing.
func TestWithNames(t *testing.T) {
	for _, dir := range []string{"", t.TempDir()} {
		a, err := Load(Options{Dir: dir, Names: []string{"one.test"}})
		if err != nil {
			t.Fatal(err)
		}
		same, err := a.WithNames("ONE.test", "127.0.0.1")
		if err != nil || same != a {
			t.Fatalf("dir %q: known names gave new material (err %v)", dir, err)
		}
		b, err := a.WithNames("two.test")
		if err != nil {
			t.Fatal(err)
		}
		if !b.Made || !bytes.Equal(a.CAPEM, b.CAPEM) {
			t.Fatalf("dir %q: Made %v, same CA %v", dir, b.Made, bytes.Equal(a.CAPEM, b.CAPEM))
		}
		for _, n := range []string{"one.test", "two.test"} {
			if err := verify(t, b, n, time.Now()); err != nil {
				t.Errorf("dir %q: %s: %v", dir, n, err)
			}
		}
		if _, err := a.WithNames("bad:name"); err == nil {
			t.Errorf("dir %q: a name with a port was taken", dir)
		}
	}
}
