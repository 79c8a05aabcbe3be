package gateway

import (
	"fmt"
	"net"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// TestApiVersionsFallback checks the exchange a Java client starts with
// against an upstream whose ApiVersions stops at v2 (like the emulator's
// kfake): v3 is answered in v0 with UNSUPPORTED_VERSION, v2 lists the
// gateway's APIs including the SASL ones it answers itself.
func TestApiVersionsFallback(t *testing.T) {
	versions := kversion.Stable()
	versions.SetMaxKeyVersion(int16(kmsg.ApiVersions), 2)
	e := newEnv(t, kfake.MaxVersions(versions))
	rc := dialRaw(t, e.gw.Addr())

	v3 := kmsg.NewPtrApiVersionsRequest()
	v3.SetVersion(3)
	v3.ClientSoftwareName, v3.ClientSoftwareVersion = "raw-test", "1.0"
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.SetVersion(0)
	rc.roundTripInto(v3, resp)
	if resp.ErrorCode != kerr.UnsupportedVersion.Code {
		t.Fatalf("ApiVersions v3: error %d, want UNSUPPORTED_VERSION", resp.ErrorCode)
	}

	v2 := kmsg.NewPtrApiVersionsRequest()
	v2.SetVersion(2)
	got := rc.roundTrip(v2).(*kmsg.ApiVersionsResponse)
	keys := map[int16]int16{}
	for _, k := range got.ApiKeys {
		keys[k.ApiKey] = k.MaxVersion
	}
	if keys[int16(kmsg.SASLHandshake)] != 1 || keys[int16(kmsg.SASLAuthenticate)] != 2 || keys[int16(kmsg.ApiVersions)] != 2 {
		t.Fatalf("ApiVersions v2 lists %v", keys)
	}
	if _, ok := keys[int16(kmsg.DeleteTopics)]; ok {
		t.Fatalf("ApiVersions offers DeleteTopics")
	}

	// The handshake refuses other mechanisms, naming PLAIN, then closes.
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.SetVersion(1)
	hs.Mechanism = "SCRAM-SHA-256"
	hsr := rc.roundTrip(hs).(*kmsg.SASLHandshakeResponse)
	if hsr.ErrorCode != kerr.UnsupportedSaslMechanism.Code || fmt.Sprint(hsr.SupportedMechanisms) != "[PLAIN]" {
		t.Fatalf("handshake SCRAM: error %d, mechanisms %v", hsr.ErrorCode, hsr.SupportedMechanisms)
	}
	rc.expectClosed()
	t.Logf("ApiVersions v3 → UNSUPPORTED_VERSION (v0), v2 → %d keys with SASL; SCRAM refused with [PLAIN]", len(keys))
}

// TestMultiBroker runs a produce and a consume through a three-broker
// upstream, which the gateway fronts with one listener per broker.
func TestMultiBroker(t *testing.T) {
	e := newEnv(t, kfake.NumBrokers(3), kfake.SeedTopics(6, testTopic))
	ctx := testCtx(t)
	pass := e.grant("key_multi", testTopic, "")
	cl := e.client(pass)
	recs := makeRecords(testTopic, "multi", 120)
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	meta, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("metadata: %v", err)
	}
	host, _, _ := net.SplitHostPort(e.gw.Addr())
	ports := map[int32]bool{}
	for _, b := range meta.Brokers {
		if b.Host != host || ports[b.Port] || b.Port == 0 {
			t.Fatalf("brokers %+v: want distinct gateway ports on %s", meta.Brokers, host)
		}
		ports[b.Port] = true
	}
	if len(ports) != 3 {
		t.Fatalf("metadata lists %d brokers, want 3", len(ports))
	}
	c := e.client(pass, kgo.ConsumerGroup("$Default"), kgo.ConsumeTopics(testTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	sameRecords(t, consume(ctx, t, c, len(recs)), recs)
	t.Logf("3 upstream brokers behind gateway ports %v; %d records produced and consumed", keysOf(ports), len(recs))
}

func keysOf(m map[int32]bool) []int32 {
	var out []int32
	for k := range m {
		out = append(out, k)
	}
	return out
}
