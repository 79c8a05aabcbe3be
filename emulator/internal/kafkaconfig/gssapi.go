package kafkaconfig

import (
	"maps"
	"slices"
	"strings"

	krb5config "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/keytab"
)

// Kerberos is how the emulator's clients log in with GSSAPI, as a Java
// client's Krb5LoginModule does with useKeyTab=true: the principal's key
// from a keytab file, the KDCs from krb5.conf.
type Kerberos struct {
	// Principal is the JAAS line's principal as given.
	Principal string
	// User and Realm split Principal; Realm is krb5.conf's default_realm
	// when the principal names none.
	User, Realm string
	// Keytab is the JAAS line's keyTab file.
	Keytab string
	// ServiceName is the first part of the broker's service principal,
	// <ServiceName>/<broker host>@<Realm>: usually kafka.
	ServiceName string
	// Krb5Conf names the krb5.conf files read, colon-separated.
	Krb5Conf string

	kt  *keytab.Keytab
	cfg *krb5config.Config
}

// krb5Options are the Krb5LoginModule options the emulator reads. storeKey
// and doNotPrompt change nothing for a client that logs in from a keytab.
var krb5Options = []string{"useKeyTab", "keyTab", "principal", "serviceName", "storeKey", "doNotPrompt", "useTicketCache"}

// parseGSSAPI reads a Krb5LoginModule line (e, given as jaas), the service
// name, krb5.conf and the keytab, so that a wrong file or principal fails
// before anything connects.
func parseGSSAPI(c *Config, p Properties, e jaasEntry, jaas string) error {
	if err := checkKrb5Options(e.options); err != nil {
		return err
	}
	svc, err := serviceName(p, e.options)
	if err != nil {
		return err
	}
	cfg, read, err := loadKrb5Conf()
	if err != nil {
		return err
	}
	k := &Kerberos{Principal: strings.TrimSpace(e.options["principal"]), Keytab: strings.TrimSpace(e.options["keyTab"]),
		ServiceName: svc, Krb5Conf: read, cfg: cfg}
	if err := k.splitPrincipal(); err != nil {
		return err
	}
	if k.kt, err = loadKeytab(k.Keytab, k.User+"@"+k.Realm); err != nil {
		return err
	}
	c.Kerberos, c.JAAS = k, jaas
	return nil
}

// checkKrb5Options refuses options the emulator does not read and a login
// other than from a keytab.
func checkKrb5Options(o map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(o)) {
		if !slices.Contains(krb5Options, k) {
			return keyErr("sasl.jaas.config", "option %q is not supported (the emulator reads %s)", k, strings.Join(krb5Options, ", "))
		}
	}
	flag := map[string]bool{}
	for _, k := range []string{"useKeyTab", "storeKey", "doNotPrompt", "useTicketCache"} {
		v, ok := o[k]
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			flag[k] = true
		case "false":
		default:
			if ok {
				return keyErr("sasl.jaas.config", "option %s=%q is not true or false", k, v)
			}
		}
	}
	_, setKeyTab := o["useKeyTab"]
	switch {
	case !flag["useKeyTab"] && flag["useTicketCache"]:
		return keyErr("sasl.jaas.config", `useTicketCache=true without useKeyTab=true: the emulator reads no Kerberos ticket cache (and runs no kinit); log in from a keytab: useKeyTab=true keyTab="…" principal="…"`)
	case !flag["useKeyTab"] && setKeyTab:
		return keyErr("sasl.jaas.config", `useKeyTab=false: the emulator logs in from a keytab only; set useKeyTab=true keyTab="…" principal="…"`)
	case !flag["useKeyTab"]:
		return keyErr("sasl.jaas.config", `useKeyTab is unset (Java's default: false, a password prompt); the emulator logs in from a keytab only: useKeyTab=true keyTab="…" principal="…"`)
	case strings.TrimSpace(o["keyTab"]) == "":
		return keyErr("sasl.jaas.config", `keyTab="…" is required with useKeyTab=true (the emulator looks for no default keytab)`)
	case strings.TrimSpace(o["principal"]) == "":
		return keyErr("sasl.jaas.config", `principal="…" is required: user@REALM, or user in krb5.conf's default_realm`)
	}
	return nil
}

// serviceName is the broker's Kerberos service name as Kafka settles it:
// the JAAS line's serviceName, else sasl.kerberos.service.name; both set
// and different, or neither, is an error (Kafka has no default).
func serviceName(p Properties, o map[string]string) (string, error) {
	prop, hasProp := p[serviceNameKey]
	prop = strings.TrimSpace(prop)
	inJAAS, hasJAAS := o["serviceName"]
	inJAAS = strings.TrimSpace(inJAAS)
	switch {
	case hasProp && hasJAAS && prop != inJAAS:
		return "", keyErr(serviceNameKey, "%q differs from serviceName=%q in sasl.jaas.config; Kafka refuses conflicting service names, give one", prop, inJAAS)
	case inJAAS != "":
		return inJAAS, nil
	case prop != "":
		return prop, nil
	}
	return "", keyErr(serviceNameKey, `required with sasl.mechanism GSSAPI (or serviceName="…" in sasl.jaas.config); Kafka has no default: the first part of the broker's service principal <name>/<broker host>@<realm>, usually kafka`)
}

// splitPrincipal sets k.User and k.Realm from k.Principal, the realm
// defaulting to krb5.conf's default_realm, and checks that krb5.conf names
// a KDC for that realm.
func (k *Kerberos) splitPrincipal() error {
	k.User = k.Principal
	if i := strings.LastIndex(k.Principal, "@"); i >= 0 {
		k.User, k.Realm = k.Principal[:i], k.Principal[i+1:]
	}
	if k.Realm == "" {
		k.Realm = k.cfg.LibDefaults.DefaultRealm
	}
	switch {
	case k.User == "":
		return keyErr("sasl.jaas.config", "principal %q names no user", k.Principal)
	case k.Realm == "":
		return keyErr("sasl.jaas.config", "principal %q names no realm and krb5.conf (%s) sets no default_realm; write it user@REALM", k.Principal, k.Krb5Conf)
	case len(k.KDCs()) == 0 && !k.cfg.LibDefaults.DNSLookupKDC:
		return keyErr("sasl.jaas.config", "principal %q: krb5.conf (%s) names no kdc for realm %s; add %s = { kdc = host:88 } under [realms]", k.Principal, k.Krb5Conf, k.Realm, k.Realm)
	}
	return nil
}

// KDCs are the KDC addresses krb5.conf lists for k's realm.
func (k *Kerberos) KDCs() []string {
	for _, r := range k.cfg.Realms {
		if r.Realm == k.Realm {
			return r.KDC
		}
	}
	return nil
}

// Name is the principal the emulator logs in as, user@REALM.
func (k *Kerberos) Name() string { return k.User + "@" + k.Realm }
