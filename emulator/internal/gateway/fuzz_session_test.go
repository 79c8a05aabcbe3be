package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// FuzzSession plays arbitrary bytes as a client connection to a session
// whose upstream answers every request with an empty response, and checks
// that the session neither panics nor outlives its client.
func FuzzSession(f *testing.F) {
	for _, seed := range hostileFrames() {
		f.Add(seed)
	}
	for _, seed := range sessionSeeds() {
		f.Add(seed)
	}
	watch := &panicWatch{}
	auth := func(_ context.Context, user, pass string) (Grant, error) {
		if pass != "ok" {
			return Grant{}, errors.New("SharedAccessKey does not match")
		}
		return Grant{KeyID: "fuzz", Topic: testTopic, GroupPrefix: "fuzz-"}, nil
	}
	g, err := New([]string{emptyUpstream(f)}, auth, WithAuthTimeout(2*time.Second),
		WithLogger(slog.New(slog.NewTextHandler(watch, nil))))
	if err != nil {
		f.Fatal(err)
	}
	g.advHost, g.advPort = "127.0.0.1", 9093
	f.Cleanup(func() { g.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ln.Close() })
	f.Fuzz(func(t *testing.T, data []byte) {
		watch.reset()
		client, server := dialPair(t, ln)
		defer client.Close()
		s := newSession(g, server, nil)
		g.mu.Lock()
		g.sessions[s] = struct{}{}
		g.wg.Add(1)
		g.mu.Unlock()
		go s.serve()
		go io.Copy(io.Discard, client)
		client.SetWriteDeadline(time.Now().Add(3 * time.Second))
		client.Write(data)
		client.CloseWrite()
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			t.Fatalf("session still open 5 s after its client stopped sending")
		}
		g.wg.Wait()
		if p := watch.panicked(); p != "" {
			t.Fatalf("session panicked: %s", p)
		}
	})
}

// dialPair returns both ends of a new loopback connection to ln.
func dialPair(t *testing.T, ln net.Listener) (*net.TCPConn, net.Conn) {
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return client.(*net.TCPConn), server
}

// panicWatch is a log sink that keeps the line of a recovered panic.
type panicWatch struct {
	mu   sync.Mutex
	last string
}

func (w *panicWatch) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("panic serving a connection")) {
		w.mu.Lock()
		w.last = string(p)
		w.mu.Unlock()
	}
	return len(p), nil
}

func (w *panicWatch) reset() { w.mu.Lock(); w.last = ""; w.mu.Unlock() }

func (w *panicWatch) panicked() string { w.mu.Lock(); defer w.mu.Unlock(); return w.last }

// emptyUpstream listens on loopback and answers each request with an empty
// response of its key and version; it returns the address.
func emptyUpstream(f *testing.F) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go answerEmpty(c)
		}
	}()
	return ln.Addr().String()
}

// answerEmpty serves one upstream connection for emptyUpstream.
func answerEmpty(c net.Conn) {
	defer c.Close()
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	for {
		frame, err := readFrame(r, maxFrame)
		if err != nil {
			return
		}
		req, err := parseRequest(frame)
		if err != nil || req.msg == nil {
			return
		}
		resp := req.msg.ResponseKind()
		resp.SetVersion(req.version)
		if err := writeFrame(w, responseHeader(req.corr, responseHeaderFlexible(req.key, req.version)), resp.AppendTo(nil)); err != nil {
			return
		}
		if err := w.Flush(); err != nil {
			return
		}
	}
}

// sessionSeeds are whole conversations: SASL with the accepted password,
// then requests the gateway checks or rewrites. (AppendRequest writes its
// size prefix at the start of the slice it is given, so each frame is
// formatted on its own and then appended.)
func sessionSeeds() [][]byte {
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("fuzz-seed"))
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.SetVersion(1)
	hs.Mechanism = "PLAIN"
	au := kmsg.NewPtrSASLAuthenticateRequest()
	au.SetVersion(2)
	au.SASLAuthBytes = []byte("\x00$ConnectionString\x00ok")
	md := kmsg.NewPtrMetadataRequest()
	md.SetVersion(12)
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.SetVersion(4)
	fc.CoordinatorKeys = []string{"group"}
	jg := kmsg.NewPtrJoinGroupRequest()
	jg.SetVersion(9)
	jg.Group = "group"
	fe := kmsg.NewPtrFetchRequest()
	fe.SetVersion(13)
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic = testTopic
	ft.Partitions = []kmsg.FetchRequestTopicPartition{kmsg.NewFetchRequestTopicPartition()}
	fe.Topics = []kmsg.FetchRequestTopic{ft}
	sasl := append(f.AppendRequest(nil, hs, 1), f.AppendRequest(nil, au, 2)...)
	var out [][]byte
	for i, r := range []kmsg.Request{md, fc, jg, fe} {
		out = append(out, append(bytes.Clone(sasl), f.AppendRequest(nil, r, int32(3+i))...))
	}
	v0 := kmsg.NewPtrSASLHandshakeRequest()
	v0.SetVersion(0)
	v0.Mechanism = "PLAIN"
	token := []byte("\x00$ConnectionString\x00ok")
	raw := append(f.AppendRequest(nil, v0, 1), binary.BigEndian.AppendUint32(nil, uint32(len(token)))...)
	out = append(out, append(append(raw, token...), f.AppendRequest(nil, md, 2)...))
	return out
}
