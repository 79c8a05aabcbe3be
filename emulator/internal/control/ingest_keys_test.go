package control

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// keysOf stores keys for node and returns them.
func keysOf(t *testing.T, f *fixture, node, name string) store.EndpointKeys {
	t.Helper()
	k, err := f.st.PutEndpointKeys(context.Background(), store.EndpointKeys{NodeID: node, EventstreamID: esID,
		KeyName: name, Primary: "p-" + name, Secondary: "s-" + name, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func connString(name, key, entity string) string {
	return fmt.Sprintf("Endpoint=sb://127.0.0.1:9093/;SharedAccessKeyName=%s;SharedAccessKey=%s;EntityPath=%s", name, key, entity)
}

var topic = eventstream.DefaultTopic(esID, dsID)

// A source's key sends, a destination's listens; every wrong credential
// is refused with what the client will read.
func TestAuthenticate(t *testing.T) {
	f := newFixture(t, broker.None())
	ctx := context.Background()
	src, dst := keysOf(t, f, srcID, "key_src"), keysOf(t, f, dstID, "key_dst")
	g, err := f.in.Authenticate(ctx, ConnectionUser, connString(src.KeyName, src.Secondary, topic))
	if err != nil || g.KeyID != srcID+"/"+SecondaryKey || g.Node != srcID || g.Eventstream != esID || g.Topic != topic || g.Listen || g.GroupPrefix != "ce-"+srcID+"-" {
		t.Fatalf("source grant %+v, %v", g, err)
	}
	g, err = f.in.Authenticate(ctx, ConnectionUser, connString(dst.KeyName, dst.Primary, topic))
	if err != nil || !g.Listen || g.KeyID != dstID+"/"+PrimaryKey {
		t.Fatalf("destination grant %+v, %v", g, err)
	}
	for _, tc := range []struct{ user, pass, says string }{
		{"me", connString(src.KeyName, src.Primary, topic), "username must be"},
		{ConnectionUser, "not a connection string", "not a connection string"},
		{ConnectionUser, "SharedAccessKeyName=key_src;SharedAccessKey=p-key_src", "no EntityPath"},
		{ConnectionUser, connString("key_other", "x", topic), "unknown SharedAccessKeyName"},
		{ConnectionUser, connString(src.KeyName, "wrong", topic), "invalid SharedAccessKey"},
		{ConnectionUser, connString(src.KeyName, src.Primary, "other.topic"), "is not the event hub"},
	} {
		_, err := f.in.Authenticate(ctx, tc.user, tc.pass)
		if e := wantKind(t, err, Unauthenticated, wire.AuthenticationFailed); !strings.Contains(e.Message, tc.says) {
			t.Errorf("%q / %q: %q, want it to say %q", tc.user, tc.pass, e.Message, tc.says)
		}
	}
}

// What a key name grants is kept: a changed definition (here a pause) is
// seen at the next connection, since the stored bytes differ; rotated keys
// are seen once the seam forgets the node, as regenerateKeys has it do.
func TestAuthenticateKeepsWhatItLearnt(t *testing.T) {
	f := newFixture(t, broker.None())
	ctx := context.Background()
	src := keysOf(t, f, srcID, "key_src")
	auth := func(key string) error {
		_, err := f.in.Authenticate(ctx, ConnectionUser, connString(src.KeyName, key, topic))
		return err
	}
	if err := auth(src.Primary); err != nil {
		t.Fatal(err)
	}
	first := f.in.keys[src.KeyName]
	if err := auth(src.Primary); err != nil || f.in.keys[src.KeyName] != first {
		t.Fatalf("second connection: %v; entry kept %v", err, f.in.keys[src.KeyName] == first)
	}

	f.update(t, func(m *eventstream.Model) { m.SetPaused(true, srcID) })
	if e := wantKind(t, auth(src.Primary), Unauthenticated, wire.AuthenticationFailed); !strings.Contains(e.Message, "paused") {
		t.Errorf("paused endpoint: %v", e)
	}
	f.update(t, func(m *eventstream.Model) { m.SetPaused(false, srcID) })
	if err := auth(src.Primary); err != nil {
		t.Fatalf("resumed: %v", err)
	}

	rotated := src
	rotated.Primary = "p-new"
	if err := f.st.UpdateEndpointKeys(ctx, rotated); err != nil {
		t.Fatal(err)
	}
	if err := auth(src.Primary); err != nil {
		t.Fatalf("the kept keys still hold until forgotten: %v", err)
	}
	f.in.ForgetNode(strings.ToUpper(srcID))
	wantKind(t, auth(src.Primary), Unauthenticated, wire.AuthenticationFailed)
	if err := auth("p-new"); err != nil {
		t.Fatalf("the new key: %v", err)
	}
	f.in.Forget(esID)
	if len(f.in.keys) != 0 {
		t.Errorf("Forget left %d entries", len(f.in.keys))
	}
}

// A node removed from the definition, or an Eventstream deleted, takes no
// more connections.
func TestAuthenticateRefusesGoneEndpoints(t *testing.T) {
	f := newFixture(t, broker.None())
	ctx := context.Background()
	src := keysOf(t, f, srcID, "key_src")
	cs := connString(src.KeyName, src.Primary, topic)
	if _, err := f.in.Authenticate(ctx, ConnectionUser, cs); err != nil {
		t.Fatal(err)
	}
	f.update(t, func(m *eventstream.Model) { m.Custom = &eventstream.Endpoints{Destinations: []string{dstID}} })
	_, err := f.in.Authenticate(ctx, ConnectionUser, cs)
	if e := wantKind(t, err, Unauthenticated, wire.AuthenticationFailed); !strings.Contains(e.Message, "removed") {
		t.Errorf("removed node: %v", e)
	}
	if err := f.st.DeleteItem(ctx, esID); err != nil {
		t.Fatal(err)
	}
	_, err = f.in.Authenticate(ctx, ConnectionUser, cs)
	if e := wantKind(t, err, Unauthenticated, wire.AuthenticationFailed); !strings.Contains(e.Message, "gone") {
		t.Errorf("deleted Eventstream: %v", e)
	}
}

// Connection strings' field names are case-insensitive, their values
// trimmed.
func TestConnectionFields(t *testing.T) {
	name, key, entity := connectionFields(" endpoint=sb://x/ ; sharedaccesskeyname = k ;SHAREDACCESSKEY=abc=;EntityPath=t;junk")
	if name != "k" || key != "abc=" || entity != "t" {
		t.Errorf("got %q %q %q", name, key, entity)
	}
}
