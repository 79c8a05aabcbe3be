package gateway

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestPanicClosesOnlyItsConnection: a panic while serving one connection
// (here, in the Authenticator) closes that connection and leaves the
// process and the other connections running.
func TestPanicClosesOnlyItsConnection(t *testing.T) {
	e := newEnv(t)
	good := dialRaw(t, e.gw.Addr())
	good.authenticate(e.grant("k1", testTopic, ""))
	e.auth.mu.Lock()
	e.auth.panicOn = "boom"
	e.auth.mu.Unlock()

	bad := dialRaw(t, e.gw.Addr())
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.SetVersion(1)
	hs.Mechanism = "PLAIN"
	bad.roundTrip(hs)
	au := kmsg.NewPtrSASLAuthenticateRequest()
	au.SetVersion(1)
	au.SASLAuthBytes = []byte("\x00" + connUser + "\x00boom")
	bad.send(au)
	bad.expectClosed()

	md := kmsg.NewPtrMetadataRequest()
	md.SetVersion(4)
	if resp := good.roundTrip(md).(*kmsg.MetadataResponse); len(resp.Topics) != 1 {
		t.Fatalf("metadata after another connection's panic: %d topics, want 1", len(resp.Topics))
	}
	dialRaw(t, e.gw.Addr()).authenticate(e.grant("k2", testTopic, ""))
	if !contains(e.logs.String(), "panic serving a connection", "authenticator bug") {
		t.Errorf("the panic is not logged")
	}
}
