package kafkaconfig

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/jcmturner/gokrb5/v8/iana/errorcode"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// A KDC nobody answers at is named with its address and the krb5.conf that
// lists it, before any broker is asked.
func TestProbeKerberosKDCUnreachable(t *testing.T) {
	kdc := closedPort(t)
	f := newKrb5Conf(t, kdc)
	err := mustParse(t, gssapiProps(f, nil)).Probe(context.Background(), []string{"127.0.0.1:1"})
	want := "kerberos login as alice@TEST.LOCAL: the KDC of realm TEST.LOCAL cannot be reached at " + kdc + " (kdc in " + f.conf + ")"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
	t.Log(err)
}

// A principal the KDC does not know is named as such.
func TestProbeKerberosPrincipalUnknown(t *testing.T) {
	f := newKrb5Conf(t, fakeKDC(t, errorcode.KDC_ERR_C_PRINCIPAL_UNKNOWN))
	err := mustParse(t, gssapiProps(f, nil)).Probe(context.Background(), []string{"127.0.0.1:1"})
	want := "the KDC of realm TEST.LOCAL does not know the principal (client not found in Kerberos database); check principal in sasl.jaas.config"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
	t.Log(err)
}

// fakeKDC answers every request on TCP with a KRB-ERROR of code and
// returns its address.
func fakeKDC(t *testing.T, code int32) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	krbErr := messages.NewKRBError(types.NewPrincipalName(nametype.KRB_NT_SRV_INST, "krbtgt/"+testRealm), testRealm, code, "")
	reply, err := krbErr.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var n [4]byte
				if _, err := io.ReadFull(c, n[:]); err != nil {
					return
				}
				if _, err := io.CopyN(io.Discard, c, int64(binary.BigEndian.Uint32(n[:]))); err != nil {
					return
				}
				_, _ = c.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(reply))), reply...))
			}()
		}
	}()
	return l.Addr().String()
}
