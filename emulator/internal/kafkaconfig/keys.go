package kafkaconfig

import (
	"sort"
	"strings"
)

// supported are the keys Parse reads.
var supported = map[string]bool{
	"bootstrap.servers": true, "security.protocol": true, "client.id": true, ShareKey: true,
	"sasl.mechanism": true, "sasl.jaas.config": true, serviceNameKey: true,
	"ssl.truststore.type": true, "ssl.truststore.location": true, "ssl.truststore.certificates": true,
	"ssl.keystore.type": true, "ssl.keystore.location": true, "ssl.keystore.certificate.chain": true, "ssl.keystore.key": true,
	"ssl.truststore.password": true, "ssl.keystore.password": true, "ssl.key.password": true,
	"ssl.endpoint.identification.algorithm": true, "ssl.enabled.protocols": true, "ssl.protocol": true,
}

// refusedWhy explains keys a Java client takes that the emulator does not.
var refusedWhy = map[string]string{
	"sasl.client.callback.handler.class":       "custom callback handlers are not supported",
	"sasl.login.callback.handler.class":        "custom callback handlers are not supported",
	"sasl.login.class":                         "custom login classes are not supported",
	"ssl.engine.factory.class":                 "custom SSL engine factories are not supported",
	"ssl.cipher.suites":                        "cipher suites are Go's defaults",
	"ssl.keymanager.algorithm":                 "key managers are a Java setting",
	"ssl.trustmanager.algorithm":               "trust managers are a Java setting",
	"ssl.secure.random.implementation":         "a Java setting",
	"ssl.provider":                             "a Java setting",
	"sasl.kerberos.kinit.cmd":                  "the emulator logs in from the keytab in sasl.jaas.config and runs no kinit",
	"sasl.kerberos.ticket.renew.window.factor": "gokrb5 renews the Kerberos ticket on its own schedule, which the emulator does not set",
	"sasl.kerberos.ticket.renew.jitter":        "gokrb5 renews the Kerberos ticket on its own schedule, which the emulator does not set",
	"sasl.kerberos.min.time.before.relogin":    "gokrb5 logs in again from the keytab when the ticket can no longer be renewed, on its own schedule",
}

// known refuses a key the emulator does not read, saying why when it can.
func known(key, _ string) error {
	if supported[key] {
		return nil
	}
	if why, ok := refusedWhy[key]; ok {
		return keyErr(key, "not supported: %s", why)
	}
	switch {
	case strings.HasPrefix(key, "sasl.kerberos."):
		return keyErr(key, "not a Kerberos setting the emulator reads (it reads %s)", serviceNameKey)
	case strings.HasPrefix(key, "sasl.oauthbearer.") || strings.HasPrefix(key, "sasl.login."):
		return keyErr(key, "not supported: OAUTHBEARER is not supported; use PLAIN, SCRAM or GSSAPI")
	}
	return keyErr(key, "not a setting the emulator reads (it reads %s)", strings.Join(supportedList(), ", "))
}

// supportedList is supported, in a stable order.
func supportedList() []string {
	keys := make([]string, 0, len(supported))
	for k := range supported {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
