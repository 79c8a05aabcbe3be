package gateway

import (
	"bytes"
	"encoding/binary"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestSilentClientClosedAtAuthDeadline: a client that connects and says
// nothing is disconnected once the SASL deadline passes.
func TestSilentClientClosedAtAuthDeadline(t *testing.T) {
	e := newEnvWith(t, []Option{WithAuthTimeout(300 * time.Millisecond)})
	rc := dialRaw(t, e.gw.Addr())
	start := time.Now()
	rc.expectClosed()
	if d := time.Since(start); d < 250*time.Millisecond || d > 5*time.Second {
		t.Fatalf("closed after %v, want about the 300ms deadline", d)
	}
	if !contains(e.logs.String(), "no SASL authentication within the deadline", "deadline=300ms") {
		t.Errorf("the log does not say why the connection closed")
	}
}

// TestChattyClientClosedAtAuthDeadline: the deadline counts from the
// connection's opening, so a client that keeps asking ApiVersions without
// authenticating is still cut.
func TestChattyClientClosedAtAuthDeadline(t *testing.T) {
	e := newEnvWith(t, []Option{WithAuthTimeout(300 * time.Millisecond)})
	rc := dialRaw(t, e.gw.Addr())
	start := time.Now()
	for time.Since(start) < 5*time.Second {
		rc.corr++
		f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("chatty"))
		if _, err := rc.c.Write(f.AppendRequest(nil, kmsg.NewPtrApiVersionsRequest(), rc.corr)); err != nil {
			break
		}
		var size [4]byte
		if _, err := rc.r.Read(size[:]); err != nil {
			break
		}
		if _, err := rc.r.Discard(int(binary.BigEndian.Uint32(size[:]))); err != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d := time.Since(start); d < 250*time.Millisecond || d > 3*time.Second {
		t.Fatalf("closed after %v, want about the 300ms deadline", d)
	}
}

// TestAuthenticatedClientOutlivesAuthDeadline: the deadline ends with SASL.
func TestAuthenticatedClientOutlivesAuthDeadline(t *testing.T) {
	e := newEnvWith(t, []Option{WithAuthTimeout(2 * time.Second)})
	rc := dialRaw(t, e.gw.Addr())
	rc.authenticate(e.grant("k1", testTopic, ""))
	time.Sleep(2500 * time.Millisecond)
	md := kmsg.NewPtrMetadataRequest()
	md.SetVersion(4)
	resp := rc.roundTrip(md).(*kmsg.MetadataResponse)
	if len(resp.Topics) != 1 || resp.Topics[0].Topic == nil || *resp.Topics[0].Topic != testTopic {
		t.Fatalf("metadata after the deadline: %+v", resp.Topics)
	}
}

// TestOversizedFrameBeforeAuthCloses: before SASL, a frame declared over
// the small limit closes the connection without an answer.
func TestOversizedFrameBeforeAuthCloses(t *testing.T) {
	e := newEnv(t)
	rc := dialRaw(t, e.gw.Addr())
	if _, err := rc.c.Write(binary.BigEndian.AppendUint32(nil, preAuthMaxFrame+1)); err != nil {
		t.Fatal(err)
	}
	rc.expectClosed()
	if !contains(e.logs.String(), "frame over the limit before SASL authentication") {
		t.Errorf("the log does not say why the connection closed")
	}
}

// TestLongConnectionStringAuthenticates: the pre-auth limit leaves room for
// a connection string far longer than Fabric's.
func TestLongConnectionStringAuthenticates(t *testing.T) {
	e := newEnv(t)
	pass := "Endpoint=sb://" + e.gw.Addr() + "/;SharedAccessKeyName=key_long;SharedAccessKey=" +
		strings.Repeat("QUJD", 4096) + ";EntityPath=" + testTopic
	e.auth.mu.Lock()
	e.auth.grants[pass] = Grant{KeyID: "long", Topic: testTopic}
	e.auth.mu.Unlock()
	rc := dialRaw(t, e.gw.Addr())
	rc.authenticate(pass)
}

// TestUnauthenticatedHugeFramesStayCheap: 8 clients that never authenticate,
// each declaring a 90 MiB frame and sending its bytes, cost the process
// almost nothing and are cut off before they finish.
func TestUnauthenticatedHugeFramesStayCheap(t *testing.T) {
	e := newEnv(t)
	const clients, declared = 8, 90 * mib
	heap0, rss0 := liveHeap(), vmRSS(t)
	stop := make(chan struct{})
	p := samplePeaks(t, stop)
	var wg sync.WaitGroup
	sent := make([]int, clients)
	cut := make([]bool, clients)
	for i := range clients {
		wg.Go(func() {
			var err error
			if sent[i], cut[i], err = sendHugeFrame(e.gw.Addr(), declared, 10*time.Second); err != nil {
				t.Errorf("client %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	close(stop)
	<-p.done
	t.Logf("heap %d MiB before, peak %d MiB; VmRSS %d MiB before, peak %d MiB; sent %v",
		heap0/mib, p.heap/mib, rss0/mib, p.rss/mib, sent)
	for i := range clients {
		if !cut[i] || sent[i] >= declared {
			t.Errorf("client %d sent %d of %d bytes and was not cut off", i, sent[i], declared)
		}
	}
	if grew := int64(p.heap) - int64(heap0); grew > 32*mib {
		t.Errorf("heap grew by %d MiB, want under 32", grew/mib)
	}
	if grew := int64(p.rss) - int64(rss0); grew > 64*mib {
		t.Errorf("resident set grew by %d MiB, want under 64", grew/mib)
	}
}

// TestAuthenticatedFrameGrowsAsBytesArrive: after SASL the gateway accepts
// a frame up to its full limit but holds only the bytes that arrived, not
// the declared size.
func TestAuthenticatedFrameGrowsAsBytesArrive(t *testing.T) {
	e := newEnv(t)
	rc := dialRaw(t, e.gw.Addr())
	rc.authenticate(e.grant("k1", testTopic, ""))
	heap0 := liveHeap()
	if _, err := rc.c.Write(binary.BigEndian.AppendUint32(nil, 90*mib)); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.c.Write(make([]byte, mib)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	heap1 := liveHeap()
	t.Logf("live heap %d MiB before the frame, %d MiB with 1 of its declared 90 MiB sent", heap0/mib, heap1/mib)
	if grew := int64(heap1) - int64(heap0); grew > 16*mib {
		t.Fatalf("live heap grew by %d MiB for 1 MiB received, want under 16", grew/mib)
	}
}

// TestLargeProduceAfterAuth: a legitimate 12 MiB record still goes through
// and comes back.
func TestLargeProduceAfterAuth(t *testing.T) {
	e := newEnv(t, kfake.BrokerConfigs(map[string]string{"message.max.bytes": "33554432"}))
	pass := e.grant("k1", testTopic, "")
	cl := e.client(pass, kgo.ProducerBatchMaxBytes(32*mib), kgo.MaxBufferedBytes(64*mib),
		kgo.FetchMaxBytes(64*mib), kgo.FetchMaxPartitionBytes(64*mib),
		kgo.ConsumeTopics(testTopic), kgo.ProducerBatchCompression(kgo.NoCompression()))
	ctx := testCtx(t)
	v := bytes.Repeat([]byte("0123456789abcdef"), 12*mib/16)
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: testTopic, Key: []byte("big"), Value: v}).FirstErr(); err != nil {
		t.Fatalf("produce 12 MiB: %v", err)
	}
	got := consume(ctx, t, cl, 1)
	if !bytes.Equal(got[0].Value, v) {
		t.Fatalf("consumed %d bytes, want the %d produced", len(got[0].Value), len(v))
	}
}
