package kafkaconfig

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"

	krb5config "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/keytab"
)

// defaultKrb5Conf is where krb5.conf is when KRB5_CONFIG is unset (a
// variable for tests).
var defaultKrb5Conf = "/etc/krb5.conf"

// krb5Paths are the krb5.conf files to read, as the MIT library reads them:
// those KRB5_CONFIG lists (colon-separated) when it is set, else
// /etc/krb5.conf. where says so in errors.
func krb5Paths() (paths []string, where string) {
	env := os.Getenv("KRB5_CONFIG")
	if strings.TrimSpace(env) == "" {
		return []string{defaultKrb5Conf}, defaultKrb5Conf + " (KRB5_CONFIG is unset)"
	}
	for _, p := range strings.Split(env, ":") {
		if p = strings.TrimSpace(p); p != "" {
			paths = append(paths, p)
		}
	}
	return paths, "KRB5_CONFIG=" + env
}

// loadKrb5Conf reads and parses krb5.conf. Of a KRB5_CONFIG list, the files
// that exist are read one after another; directives gokrb5 does not take
// (include, v4 settings) are skipped. read names the files read.
func loadKrb5Conf() (cfg *krb5config.Config, read string, err error) {
	paths, where := krb5Paths()
	var text strings.Builder
	var got []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) && len(paths) > 1 {
			continue
		}
		if err != nil {
			return nil, "", keyErr("sasl.mechanism", "GSSAPI needs krb5.conf: read %s: %v", where, err)
		}
		text.Write(b)
		text.WriteString("\n")
		got = append(got, p)
	}
	if len(got) == 0 {
		return nil, "", keyErr("sasl.mechanism", "GSSAPI needs krb5.conf: none of %s exists", where)
	}
	cfg, err = krb5config.NewFromString(text.String())
	var skipped krb5config.UnsupportedDirective
	if err != nil && !errors.As(err, &skipped) {
		return nil, "", keyErr("sasl.mechanism", "GSSAPI needs krb5.conf: parse %s: %v", where, err)
	}
	return cfg, strings.Join(got, ":"), nil
}

// loadKeytab reads the keytab file at path and checks that it holds a key
// for principal (user@REALM).
func loadKeytab(path, principal string) (*keytab.Keytab, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, keyErr("sasl.jaas.config", "keyTab: read: %v", err)
	}
	kt := keytab.New()
	if err := kt.Unmarshal(b); err != nil {
		return nil, keyErr("sasl.jaas.config", "keyTab %s is not a keytab file: %v", path, err)
	}
	var held []string
	for _, e := range kt.Entries {
		name := e.Principal.String()
		if name == principal {
			return kt, nil
		}
		if !slices.Contains(held, name) {
			held = append(held, name)
		}
	}
	has := "no keys"
	if len(held) > 0 {
		has = "keys for " + strings.Join(held, ", ")
	}
	return nil, keyErr("sasl.jaas.config", "keyTab %s holds no key for principal %s (it holds %s)", path, principal, has)
}
