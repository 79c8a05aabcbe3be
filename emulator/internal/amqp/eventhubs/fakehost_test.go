package eventhubs

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// testKey is the shared access key of the fake host's key "key_x".
const testKey = "c2VjcmV0LWtleS1mb3ItdGVzdHM="

// fakeHost is an in-memory Host: one or more hubs with partitions, SAS
// keys with claims, and a record of what it was asked.
type fakeHost struct {
	mu      sync.Mutex
	keys    map[string]fakeKey
	hubs    map[string]*fakeHub
	sendErr error
	now     func() time.Time
	creds   []Credential
	sends   []fakeSend
}

// fakeKey is a key and its claims.
type fakeKey struct {
	key          string
	send, listen bool
}

// fakeHub is a hub's partitions.
type fakeHub struct {
	info  HubInfo
	parts [][]StoredEvent
}

// fakeSend records one Send call.
type fakeSend struct {
	hub       string
	partition int
	events    []Event
	grant     Grant
}

// newFakeHost returns a host with hub "es" of 2 partitions, consumer group
// "cg", key "key_x" (Send, Listen) and key "listen_only".
func newFakeHost() *fakeHost {
	h := &fakeHost{keys: map[string]fakeKey{
		"key_x":       {key: testKey, send: true, listen: true},
		"listen_only": {key: "bGlzdGVu", listen: true},
	}, hubs: map[string]*fakeHub{}, now: time.Now}
	h.addHub("es", 2)
	return h
}

// addHub adds an empty hub.
func (h *fakeHost) addHub(name string, partitions int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hubs[strings.ToLower(name)] = &fakeHub{
		info:  HubInfo{Name: name, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), PartitionCount: partitions, ConsumerGroups: []string{"cg"}},
		parts: make([][]StoredEvent, partitions),
	}
}

// Authorize checks SAS tokens and PLAIN keys; a JWT "good-jwt" is allowed.
func (h *fakeHost) Authorize(_ context.Context, c Credential) (Grant, error) {
	h.mu.Lock()
	h.creds = append(h.creds, c)
	h.mu.Unlock()
	switch c.Type {
	case TokenSASLPlain:
		k, ok := h.keys[c.KeyName]
		if !ok || k.key != c.Token {
			return Grant{}, fmt.Errorf("key %q refused: %w", c.KeyName, ErrUnauthorized)
		}
		return Grant{Send: k.send, Listen: k.listen, KeyID: c.KeyName}, nil
	case TokenJWT:
		if c.Token != "good-jwt" {
			return Grant{}, fmt.Errorf("bad JWT: %w", ErrUnauthorized)
		}
		return Grant{Send: true, Listen: true, Expires: h.now().Add(time.Hour), KeyID: "principal"}, nil
	case TokenSAS:
		return h.authorizeSAS(c)
	}
	return Grant{}, fmt.Errorf("token type %q: %w", c.Type, ErrUnauthorized)
}

// authorizeSAS verifies a SAS token against the key it names.
func (h *fakeHost) authorizeSAS(c Credential) (Grant, error) {
	sas, err := ParseSAS(c.Token)
	if err != nil {
		return Grant{}, fmt.Errorf("%v: %w", err, ErrUnauthorized)
	}
	k, ok := h.keys[sas.KeyName]
	if !ok {
		return Grant{}, fmt.Errorf("no key %q: %w", sas.KeyName, ErrUnauthorized)
	}
	if err := sas.Verify(k.key, h.now()); err != nil {
		return Grant{}, fmt.Errorf("%v: %w", err, ErrUnauthorized)
	}
	if c.Audience != "" && !Covers(sas.Resource, c.Audience) {
		return Grant{}, fmt.Errorf("token for %q does not cover %q: %w", sas.Resource, c.Audience, ErrUnauthorized)
	}
	entity, _, _ := strings.Cut(EntityPath(sas.Resource), "/")
	return Grant{Entity: entity, Send: k.send, Listen: k.listen, Expires: sas.Expiry, KeyID: sas.KeyName}, nil
}

// hub returns a hub by name.
func (h *fakeHost) hub(name string) (*fakeHub, error) {
	hub, ok := h.hubs[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("The messaging entity '%s' could not be found: %w", name, ErrNotFound)
	}
	return hub, nil
}

// Hub describes a hub.
func (h *fakeHost) Hub(_ context.Context, name string) (HubInfo, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	hub, err := h.hub(name)
	if err != nil {
		return HubInfo{}, err
	}
	return hub.info, nil
}

// PartitionInfo describes a partition.
func (h *fakeHost) PartitionInfo(_ context.Context, name string, p int) (PartitionInfo, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	hub, err := h.hub(name)
	if err != nil {
		return PartitionInfo{}, err
	}
	evs := hub.parts[p]
	if len(evs) == 0 {
		return PartitionInfo{LastSequenceNumber: -1, LastOffset: -1, Empty: true}, nil
	}
	last := evs[len(evs)-1]
	return PartitionInfo{BeginSequenceNumber: evs[0].SequenceNumber, LastSequenceNumber: last.SequenceNumber, LastOffset: last.Offset, LastEnqueuedTime: last.EnqueuedTime}, nil
}

// Send stores events, placing keyed ones by a hash of the key.
func (h *fakeHost) Send(_ context.Context, g Grant, name string, p int, events []Event) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sendErr != nil {
		return h.sendErr
	}
	hub, err := h.hub(name)
	if err != nil {
		return err
	}
	h.sends = append(h.sends, fakeSend{hub: name, partition: p, events: cloneEvents(events), grant: g})
	for _, e := range events {
		q := p
		if q < 0 {
			f := fnv.New32a()
			f.Write([]byte(e.PartitionKey))
			q = int(f.Sum32() % uint32(len(hub.parts)))
		}
		part := hub.parts[q]
		var off int64
		if n := len(part); n > 0 {
			off = part[n-1].Offset + int64(len(part[n-1].Body)) + 1
		}
		e.Message = nil
		hub.parts[q] = append(part, StoredEvent{Event: e, SequenceNumber: int64(len(part)), Offset: off, EnqueuedTime: time.Now().UTC().Truncate(time.Millisecond)})
	}
	return nil
}

// cloneEvents copies events so that no bytes alias the door's buffers.
func cloneEvents(events []Event) []Event {
	out := make([]Event, len(events))
	for i, e := range events {
		e.Body = bytes.Clone(e.Body)
		out[i] = e
	}
	return out
}

// Read returns stored events from a position.
func (h *fakeHost) Read(_ context.Context, name, group string, p int, from Position, max int) ([]StoredEvent, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	hub, err := h.hub(name)
	if err != nil {
		return nil, err
	}
	part := hub.parts[p]
	start := 0
	if from.Kind == FromSequence && !from.Inclusive { // sequence numbers are indexes here
		start = int(min(max64(from.Value, -1)+1, int64(len(part))))
	}
	var out []StoredEvent
	for _, e := range part[start:] {
		if len(out) == max {
			break
		}
		if after(e, from) {
			out = append(out, e)
		}
	}
	return out, nil
}

// max64 returns the larger of a and b.
func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// after reports whether e is at or after a position.
func after(e StoredEvent, from Position) bool {
	cmp := func(a, b int64) bool { return a > b || (from.Inclusive && a == b) }
	switch from.Kind {
	case FromEarliest:
		return true
	case FromSequence:
		return cmp(e.SequenceNumber, from.Value)
	case FromOffset:
		return cmp(e.Offset, from.Value)
	case FromTime:
		return cmp(e.EnqueuedTime.UnixMilli(), from.Time.UnixMilli())
	}
	return false
}

// events returns a copy of a partition's events.
func (h *fakeHost) events(name string, p int) []StoredEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]StoredEvent(nil), h.hubs[name].parts[p]...)
}

// logBuffer collects log lines safely.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was logged.
func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testServer is a door on a loopback listener with a fake host.
type testServer struct {
	*Server
	host *fakeHost
	addr string
	logs *logBuffer
}

// startServer serves a fake host on 127.0.0.1:0 until the test ends.
func startServer(t testing.TB, opts Options) *testServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	h := newFakeHost()
	if opts.Now != nil {
		h.now = opts.Now
	}
	s := NewServer(h, opts)
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; err != ErrServerClosed {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	return &testServer{Server: s, host: h, addr: l.Addr().String(), logs: logs}
}
