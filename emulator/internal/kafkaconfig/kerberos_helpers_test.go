package kafkaconfig

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"
)

// testRealm is the realm of the tests' krb5.conf.
const testRealm = "TEST.LOCAL"

// krbFiles are a krb5.conf (set as KRB5_CONFIG) and a keytab for
// alice@TEST.LOCAL.
type krbFiles struct {
	conf, keytab string
}

// newKrb5Conf writes a krb5.conf whose realm TEST.LOCAL has its KDC at
// kdc, sets KRB5_CONFIG to it for the test, and writes a keytab holding
// principals' keys.
func newKrb5Conf(t *testing.T, kdc string, principals ...string) krbFiles {
	t.Helper()
	conf := writeFile(t, "krb5.conf", fmt.Sprintf(`[libdefaults]
  default_realm = %[1]s
  udp_preference_limit = 1
  dns_lookup_kdc = false

[realms]
  %[1]s = {
    kdc = %[2]s
  }
`, testRealm, kdc))
	t.Setenv("KRB5_CONFIG", conf)
	if len(principals) == 0 {
		principals = []string{"alice"}
	}
	return krbFiles{conf: conf, keytab: writeKeytab(t, principals...)}
}

// writeKeytab writes a keytab with an AES key for each principal (a name
// in TEST.LOCAL) and returns its path.
func writeKeytab(t *testing.T, principals ...string) string {
	t.Helper()
	kt := keytab.New()
	for _, p := range principals {
		if err := kt.AddEntry(p, testRealm, "pw-"+p, time.Now(), 1, etypeID.AES256_CTS_HMAC_SHA1_96); err != nil {
			t.Fatal(err)
		}
	}
	b, err := kt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "client.keytab")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// krb5JAAS is a Krb5LoginModule line for principal with keyTab kt, extra
// options appended.
func krb5JAAS(kt, principal, extra string) string {
	return fmt.Sprintf(`com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="%s" principal="%s"%s;`, kt, principal, extra)
}

// gssapiProps are GSSAPI properties for alice with the keytab of f.
func gssapiProps(f krbFiles, extra Properties) Properties {
	return Merge(Properties{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI",
		"sasl.kerberos.service.name": "kafka", "sasl.jaas.config": krb5JAAS(f.keytab, "alice@"+testRealm, "")}, extra)
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
