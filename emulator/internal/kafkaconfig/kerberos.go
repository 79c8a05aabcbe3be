package kafkaconfig

import (
	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/kerberos"
)

// client is a gokrb5 client that logs in as k's principal with its keytab
// (without FAST armoring, which gokrb5 does not speak).
func (k *Kerberos) client() *client.Client {
	return client.NewWithKeytab(k.User, k.Realm, k.kt, k.cfg, client.DisablePAFXFAST(true))
}

// mechanism is franz-go's GSSAPI mechanism for k: one Kerberos login, its
// ticket renewed by gokrb5 (and taken again from the keytab when it can no
// longer be renewed), shared by the connections of one franz-go client and
// ended when that client closes. A broker written as an IP address is
// named as the Java client names it (principalHost).
func (k *Kerberos) mechanism() sasl.Mechanism {
	m := kerberos.Auth{Client: k.client(), Service: k.ServiceName}.AsMechanismWithClose()
	return javaNamed{m.(closingMechanism)}
}
