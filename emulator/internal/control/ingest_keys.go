package control

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// ConnectionUser is the SASL PLAIN username of the Event Hubs Kafka
// surface: the password is then the connection string.
const ConnectionUser = "$ConnectionString"

// Key types of a CustomEndpoint node's shared access keys.
const (
	PrimaryKey   = "PrimaryKey"
	SecondaryKey = "SecondaryKey"
)

// Grant is what a shared access key of a CustomEndpoint node authenticates:
// a session on the node's one topic; a source's keys may send (Caller.Key
// of a write), a destination's listen.
type Grant struct {
	// KeyID is node id "/" key type: what a door closes on key rotation.
	KeyID string
	// Eventstream and Node are the item and the CustomEndpoint node the
	// key belongs to.
	Eventstream, Node string
	// Topic is the node's topic (the connection string's EntityPath).
	Topic string
	// GroupPrefix scopes the session's consumer groups upstream.
	GroupPrefix string
	// Listen is set for a destination's key (consume); a source's key
	// sends (produce).
	Listen bool
}

// keyEntry is what Authenticate learnt about one key name: the keys, and
// what the Eventstream's stored properties (props) said about its node.
type keyEntry struct {
	keys   store.EndpointKeys
	props  []byte
	source bool   // the node is a CustomEndpoint source (else a destination)
	topic  string // the node's topic
	paused bool
	gone   string // why the node takes no connection ("": it does)
}

// Authenticate checks a Kafka client's SASL PLAIN credentials: username
// ConnectionUser and, as password, a connection string this emulator
// handed out, with a current key, for a CustomEndpoint node that still
// exists, is not paused, and whose topic is its EntityPath. Its *Error
// (Kind Unauthenticated) words what the client reports.
func (in *Ingest) Authenticate(ctx context.Context, username, password string) (Grant, error) {
	if username != ConnectionUser {
		return Grant{}, unauthenticated("username must be %s (the password is the connection string)", ConnectionUser)
	}
	name, key, entity := connectionFields(password)
	if name == "" || key == "" {
		return Grant{}, unauthenticated("the password is not a connection string with SharedAccessKeyName and SharedAccessKey")
	}
	if entity == "" {
		return Grant{}, unauthenticated("the connection string has no EntityPath; use the one GET …/connection returned")
	}
	keys, cached, gen, err := in.keysNamed(ctx, name)
	if err != nil {
		return Grant{}, err
	}
	keyType := ""
	switch {
	case subtle.ConstantTimeCompare([]byte(key), []byte(keys.Primary)) == 1:
		keyType = PrimaryKey
	case subtle.ConstantTimeCompare([]byte(key), []byte(keys.Secondary)) == 1:
		keyType = SecondaryKey
	default:
		return Grant{}, unauthenticated("invalid SharedAccessKey for %s (wrong, or regenerated since)", name)
	}
	return in.grantOf(ctx, keys, cached, gen, keyType, entity)
}

// AuthenticateKey checks a credential made from a shared access key of key
// name (an Event Hubs SAS token): verify is called with the primary key,
// then with the secondary, and the first it accepts is the key. Then, as
// Authenticate: the node still exists, a source is not paused, and entity
// (when not empty) is its topic. A refusal of verify for both keys is
// worded with the primary's error.
func (in *Ingest) AuthenticateKey(ctx context.Context, name, entity string, verify func(key string) error) (Grant, error) {
	keys, cached, gen, err := in.keysNamed(ctx, name)
	if err != nil {
		return Grant{}, err
	}
	keyType := PrimaryKey
	if err := verify(keys.Primary); err != nil {
		if verify(keys.Secondary) != nil {
			return Grant{}, unauthenticated("%v (the key of %s is wrong, or was regenerated since)", err, name)
		}
		keyType = SecondaryKey
	}
	return in.grantOf(ctx, keys, cached, gen, keyType, entity)
}

// grantOf is the grant of keys' key keyType, once the node still takes
// connections for entity ("": any of its own).
func (in *Ingest) grantOf(ctx context.Context, keys store.EndpointKeys, cached *keyEntry, gen uint64, keyType, entity string) (Grant, error) {
	name := keys.KeyName
	e, err := in.current(ctx, keys, cached, gen)
	if err != nil {
		return Grant{}, err
	}
	switch {
	case e.gone != "":
		return Grant{}, unauthenticated("%s", e.gone)
	case entity != "" && entity != e.topic:
		return Grant{}, unauthenticated("EntityPath %q is not the event hub of %s", entity, name)
	case e.paused:
		return Grant{}, unauthenticated("the custom endpoint of %s is paused; resume it (POST …/resume) to connect", name)
	}
	node := e.keys.NodeID
	return Grant{KeyID: node + "/" + keyType, Eventstream: e.keys.EventstreamID, Node: node, Topic: e.topic,
		GroupPrefix: "ce-" + node + "-", Listen: !e.source}, nil
}

// unauthenticated is a refusal of credentials.
func unauthenticated(format string, args ...any) *Error {
	return refuse(Unauthenticated, wire.AuthenticationFailed, "", "", format, args...)
}

// connectionFields reads an Event Hubs connection string's key name, key
// and entity path (field names are case-insensitive).
func connectionFields(s string) (name, key, entity string) {
	for part := range strings.SplitSeq(s, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "sharedaccesskeyname":
			name = v
		case "sharedaccesskey":
			key = v
		case "entitypath":
			entity = v
		}
	}
	return name, key, entity
}

// keysNamed returns key name's keys, and its cache entry (nil when there
// is none) with the forget count it was read at.
func (in *Ingest) keysNamed(ctx context.Context, name string) (store.EndpointKeys, *keyEntry, uint64, error) {
	in.mu.Lock()
	e, gen := in.keys[name], in.gen
	in.mu.Unlock()
	if e != nil {
		return e.keys, e, gen, nil
	}
	keys, err := in.cfg.Store.EndpointKeysByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return keys, nil, gen, unauthenticated("unknown SharedAccessKeyName %q", name)
	}
	return keys, nil, gen, err
}

// current returns the entry of keys: cached when the Eventstream's stored
// properties are still those it was made from, made again (and cached,
// unless something was forgotten since gen) when not.
func (in *Ingest) current(ctx context.Context, keys store.EndpointKeys, cached *keyEntry, gen uint64) (*keyEntry, error) {
	it, err := in.cfg.Store.GetItem(ctx, keys.EventstreamID)
	if err != nil {
		return nil, unauthenticated("the Eventstream of %s is gone", keys.KeyName)
	}
	if cached != nil && bytes.Equal(cached.props, it.Properties) {
		return cached, nil
	}
	e := newKeyEntry(keys, it)
	in.mu.Lock()
	if in.gen == gen {
		in.keys[keys.KeyName] = e
	}
	in.mu.Unlock()
	return e, nil
}

// newKeyEntry reads what keys' node is in Eventstream it.
func newKeyEntry(keys store.EndpointKeys, it store.Item) *keyEntry {
	e := &keyEntry{keys: keys, props: it.Properties}
	name := keys.KeyName
	m, err := eventstream.Decode(it)
	if err != nil {
		e.gone = fmt.Sprintf("read the Eventstream of %s: %v", name, err)
		return e
	}
	e.source = slices.Contains(m.CustomSources(), keys.NodeID)
	if !e.source && !slices.Contains(m.CustomDestinations(), keys.NodeID) {
		e.gone = fmt.Sprintf("the custom endpoint of %s was removed from the Eventstream's definition", name)
		return e
	}
	if e.topic, err = EndpointTopic(m, keys.NodeID); err != nil {
		e.gone = fmt.Sprintf("the custom endpoint of %s has no topic: %v", name, err)
		return e
	}
	e.paused = e.source && m.SourcePaused(keys.NodeID, m.Default().ID) || !e.source && m.IsPaused(keys.NodeID)
	return e
}

// Forget drops what the seam keeps about Eventstream itemID's keys: call
// it when the Eventstream's definition changes, when it or one of its
// nodes is paused or resumed, and when it is deleted.
func (in *Ingest) Forget(itemID string) {
	in.forget(func(e *keyEntry) bool { return strings.EqualFold(e.keys.EventstreamID, itemID) })
}

// ForgetNode drops what the seam keeps about CustomEndpoint node's keys:
// call it when they are regenerated or deleted.
func (in *Ingest) ForgetNode(node string) {
	in.forget(func(e *keyEntry) bool { return strings.EqualFold(e.keys.NodeID, node) })
}

func (in *Ingest) forget(drop func(*keyEntry) bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.gen++
	for name, e := range in.keys {
		if drop(e) {
			delete(in.keys, name)
		}
	}
}

// EndpointTopic is the topic the Kafka clients of CustomEndpoint node use:
// the DefaultStream's, or for a destination fed by a DerivedStream that
// stream's.
func EndpointTopic(m eventstream.Model, node string) (string, error) {
	if len(m.Streams) == 0 {
		return "", fabricerr.Conflict(wire.EventstreamNotProvisioned, "the Eventstream has no DefaultStream yet")
	}
	t, err := m.Topology()
	if err != nil || t == nil {
		return m.Streams[0].Topic, err
	}
	for _, n := range t.Destinations {
		if !strings.EqualFold(n.ID(), node) || len(n.Inputs) != 1 {
			continue
		}
		in := t.ByName[n.Inputs[0]]
		if in == nil || !in.Is(eventstream.DerivedStreamType) {
			break
		}
		if s, ok := m.Stream(in.ID()); ok {
			return s.Topic, nil
		}
		return "", fmt.Errorf("derived stream %q of CustomEndpoint destination %s has no topic", in.Name, node)
	}
	return m.Streams[0].Topic, nil
}
