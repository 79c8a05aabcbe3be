package kafkaconfig

import (
	"strings"
	"testing"
)

func TestParseGSSAPI(t *testing.T) {
	f := newKrb5Conf(t, closedPort(t))
	for name, p := range map[string]Properties{
		"service name property": gssapiProps(f, nil),
		"service name in JAAS": gssapiProps(f, Properties{"sasl.kerberos.service.name": "",
			"sasl.jaas.config": krb5JAAS(f.keytab, "alice@"+testRealm, ` serviceName="kafka"`)}),
		"both, equal":   gssapiProps(f, Properties{"sasl.jaas.config": krb5JAAS(f.keytab, "alice@"+testRealm, ` serviceName="kafka" useTicketCache=false doNotPrompt=true`)}),
		"default realm": gssapiProps(f, Properties{"sasl.jaas.config": krb5JAAS(f.keytab, "alice", "")}),
		"SASL_SSL, shaded": gssapiProps(f, Properties{"security.protocol": "SASL_SSL", "sasl.mechanism": "gssapi",
			"sasl.jaas.config": "kafkashaded." + krb5JAAS(f.keytab, "alice@"+testRealm, "")}),
		"ticket cache beside a keytab": gssapiProps(f, Properties{"sasl.jaas.config": krb5JAAS(f.keytab, "alice@"+testRealm, " useTicketCache=TRUE")}),
	} {
		if name == "service name in JAAS" {
			delete(p, "sasl.kerberos.service.name")
		}
		c := mustParse(t, p)
		k := c.Kerberos
		if c.SASLMechanism != GSSAPI || k == nil || k.Name() != "alice@"+testRealm || k.ServiceName != "kafka" ||
			k.Keytab != f.keytab || k.Krb5Conf != f.conf || c.JAAS != p["sasl.jaas.config"] {
			t.Fatalf("%s: got %+v, %+v", name, c, k)
		}
		if m := c.Mechanism(); m == nil || m.Name() != "GSSAPI" {
			t.Fatalf("%s: mechanism %v", name, m)
		}
		if want := map[bool]int{false: 1, true: 2}[c.TLS != nil]; len(c.Opts()) != want {
			t.Fatalf("%s: %d options, want %d", name, len(c.Opts()), want)
		}
	}
}

// A notebook gets the protocol, the mechanism and the service name; the
// JAAS line (keytab and principal) only when shared.
func TestNotebookPropertiesGSSAPI(t *testing.T) {
	f := newKrb5Conf(t, closedPort(t))
	p := gssapiProps(f, nil)
	got := mustParse(t, p).NotebookProperties()
	want := map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI", "sasl.kerberos.service.name": "kafka"}
	if len(got) != len(want) {
		t.Fatalf("not shared: got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s = %q, want %q", k, got[k], v)
		}
	}
	got = mustParse(t, Merge(p, Properties{ShareKey: "true"})).NotebookProperties()
	if got["sasl.jaas.config"] != p["sasl.jaas.config"] || got["sasl.kerberos.service.name"] != "kafka" {
		t.Fatalf("shared: got %v", got)
	}
}

// Every GSSAPI refusal names the key at fault.
func TestGSSAPIRefusals(t *testing.T) {
	f := newKrb5Conf(t, closedPort(t))
	alice := "alice@" + testRealm
	jaas := func(line string) Properties { return gssapiProps(f, Properties{"sasl.jaas.config": line}) }
	module := "com.sun.security.auth.module.Krb5LoginModule required "
	cases := []struct {
		name  string
		props Properties
		env   string // KRB5_CONFIG, when not f.conf
		key   string
		says  string
	}{
		{"no JAAS", Properties{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI", "sasl.kerberos.service.name": "kafka"}, "", "sasl.jaas.config", `required with security.protocol SASL_PLAINTEXT: a com.sun.security.auth.module.Krb5LoginModule line with useKeyTab=true`},
		{"PLAIN line", jaas(plainJAAS), "", "sasl.jaas.config", "does not fit sasl.mechanism GSSAPI"},
		{"unknown option", jaas(krb5JAAS(f.keytab, alice, " renewTGT=true")), "", "sasl.jaas.config", `option "renewTGT" is not supported`},
		{"not a boolean", jaas(module + `useKeyTab=yes keyTab="x" principal="alice";`), "", "sasl.jaas.config", `useKeyTab="yes" is not true or false`},
		{"ticket cache without keytab", jaas(module + `useTicketCache=true;`), "", "sasl.jaas.config", "reads no Kerberos ticket cache"},
		{"useKeyTab=false", jaas(module + `useKeyTab=false keyTab="x" principal="alice";`), "", "sasl.jaas.config", "useKeyTab=false: the emulator logs in from a keytab only"},
		{"useKeyTab unset", jaas(module + `keyTab="x" principal="alice";`), "", "sasl.jaas.config", "useKeyTab is unset"},
		{"no keyTab", jaas(module + `useKeyTab=true principal="alice";`), "", "sasl.jaas.config", `keyTab="…" is required`},
		{"no principal", jaas(module + `useKeyTab=true keyTab="x";`), "", "sasl.jaas.config", `principal="…" is required`},
		{"no user", jaas(krb5JAAS(f.keytab, "@"+testRealm, "")), "", "sasl.jaas.config", "names no user"},
		{"no service name", gssapiProps(f, Properties{"sasl.kerberos.service.name": ""}), "", "sasl.kerberos.service.name", "required with sasl.mechanism GSSAPI"},
		{"conflicting service names", jaas(krb5JAAS(f.keytab, alice, ` serviceName="other"`)), "", "sasl.kerberos.service.name", `"kafka" differs from serviceName="other"`},
		{"missing keytab", jaas(krb5JAAS("/nonexistent/c.keytab", alice, "")), "", "sasl.jaas.config", "keyTab: read: open /nonexistent/c.keytab"},
		{"not a keytab", jaas(krb5JAAS(writeFile(t, "junk.keytab", "junk"), alice, "")), "", "sasl.jaas.config", "is not a keytab file"},
		{"keytab of another principal", jaas(krb5JAAS(f.keytab, "bob@"+testRealm, "")), "", "sasl.jaas.config", "holds no key for principal bob@TEST.LOCAL (it holds keys for alice@TEST.LOCAL)"},
		{"missing krb5.conf", gssapiProps(f, nil), "/nonexistent/krb5.conf", "sasl.mechanism", "GSSAPI needs krb5.conf: read KRB5_CONFIG=/nonexistent/krb5.conf"},
		{"none of a list", gssapiProps(f, nil), "/nonexistent/a.conf:/nonexistent/b.conf", "sasl.mechanism", "none of KRB5_CONFIG=/nonexistent/a.conf:/nonexistent/b.conf exists"},
		{"unparsable krb5.conf", gssapiProps(f, nil), writeFile(t, "bad.conf", "[libdefaults]\n  dns_lookup_kdc = maybe\n"), "sasl.mechanism", "GSSAPI needs krb5.conf: parse KRB5_CONFIG="},
		{"no default realm", jaas(krb5JAAS(f.keytab, "alice", "")), writeFile(t, "norealm.conf", "[libdefaults]\n  dns_lookup_kdc = false\n"), "sasl.jaas.config", `principal "alice" names no realm`},
		{"no KDC for the realm", jaas(krb5JAAS(f.keytab, "alice@OTHER.LOCAL", "")), "", "sasl.jaas.config", "names no kdc for realm OTHER.LOCAL"},
		{"service name under PLAINTEXT", Properties{"sasl.kerberos.service.name": "kafka"}, "", "sasl.kerberos.service.name", "security.protocol is PLAINTEXT"},
		{"kinit", gssapiProps(f, Properties{"sasl.kerberos.kinit.cmd": "/usr/bin/kinit"}), "", "sasl.kerberos.kinit.cmd", "runs no kinit"},
		{"renew window", gssapiProps(f, Properties{"sasl.kerberos.ticket.renew.window.factor": "0.8"}), "", "sasl.kerberos.ticket.renew.window.factor", "own schedule"},
		{"renew jitter", gssapiProps(f, Properties{"sasl.kerberos.ticket.renew.jitter": "0.05"}), "", "sasl.kerberos.ticket.renew.jitter", "own schedule"},
		{"relogin", gssapiProps(f, Properties{"sasl.kerberos.min.time.before.relogin": "60000"}), "", "sasl.kerberos.min.time.before.relogin", "own schedule"},
		{"other Kerberos key", gssapiProps(f, Properties{"sasl.kerberos.principal.to.local.rules": "DEFAULT"}), "", "sasl.kerberos.principal.to.local.rules", "not a Kerberos setting the emulator reads (it reads sasl.kerberos.service.name)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("KRB5_CONFIG", tc.env)
			}
			_, err := Parse(tc.props)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), "kafka config "+tc.key+":") || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error %q does not name %s with %q", err, tc.key, tc.says)
			}
		})
	}
}

// Without KRB5_CONFIG, krb5.conf is /etc/krb5.conf, as for the MIT library.
func TestKrb5ConfDefault(t *testing.T) {
	f := newKrb5Conf(t, closedPort(t))
	t.Setenv("KRB5_CONFIG", "")
	saved := defaultKrb5Conf
	t.Cleanup(func() { defaultKrb5Conf = saved })
	defaultKrb5Conf = "/nonexistent/etc/krb5.conf"
	_, err := Parse(gssapiProps(f, nil))
	if err == nil || !strings.Contains(err.Error(), "kafka config sasl.mechanism: GSSAPI needs krb5.conf: read /nonexistent/etc/krb5.conf (KRB5_CONFIG is unset)") {
		t.Fatalf("no krb5.conf: %v", err)
	}
	defaultKrb5Conf = f.conf
	if c := mustParse(t, gssapiProps(f, nil)); c.Kerberos.Krb5Conf != f.conf {
		t.Fatalf("read %s", c.Kerberos.Krb5Conf)
	}
}
