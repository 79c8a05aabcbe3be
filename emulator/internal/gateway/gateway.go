package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// Grant is what an authenticated connection may do.
type Grant struct {
	// KeyID identifies the credential, so Revoke can close its sessions.
	KeyID string
	// Topic is the only topic this connection may read and write (the
	// connection string's EntityPath).
	Topic string
	// GroupPrefix, when set, scopes consumer group ids: a client's group
	// "<group>" is "<prefix><group>" upstream.
	GroupPrefix string
	// Rights limits what the connection may do with Topic: Send (produce),
	// Listen (fetch, consumer offsets), or both. Zero allows both.
	Rights Rights
	// Node is the host's name for where the credential belongs (the
	// emulator: its CustomEndpoint node), told back to the ProduceObserver.
	Node string
	// Owner is the host's name for what Node belongs to (the emulator: the
	// Eventstream), told back to the ProduceObserver.
	Owner string
}

// Rights are the Event Hubs claims of a shared access key.
type Rights uint8

// The rights a Grant may carry.
const (
	// Send lets a connection produce into its topic.
	Send Rights = 1 << iota
	// Listen lets a connection fetch from its topic and keep consumer offsets.
	Listen
)

// may reports whether the grant carries need (zero: nothing needed).
func (g Grant) may(need Rights) bool { return need == 0 || g.Rights == 0 || g.Rights&need == need }

// Authenticator checks SASL PLAIN credentials. An error refuses the
// connection, and its message is sent to the client.
type Authenticator func(ctx context.Context, username, password string) (Grant, error)

// Gateway is a Kafka endpoint that authenticates clients with SASL PLAIN and
// forwards their requests, restricted to their Grant, to an upstream cluster.
type Gateway struct {
	upstream    []string
	auth        Authenticator
	listenAddr  string
	advertised  string
	log         *slog.Logger
	authTimeout time.Duration
	onProduce   ProduceObserver  // data insights; nil counts nothing
	faults      FaultCheck       // injected faults; nil injects none
	maxConns    int              // client connections served at once
	idleTimeout time.Duration    // an authenticated connection's longest silence
	tls         *tls.Config      // nil: SASL_PLAINTEXT
	upSec       upstreamSecurity // TLS and SASL towards a secured upstream
	amqp        AMQPHandler      // takes AMQP connections; nil refuses them

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu          sync.Mutex
	started     bool
	closed      bool
	ln          net.Listener
	advHost     string
	advPort     int32
	nodes       map[int32]*nodeListener // multi-broker upstream only
	brokerCount int                     // brokers in the last upstream metadata, 0 before any
	sessions    map[*session]struct{}
	byKey       map[string]map[*session]struct{}
	topicIDs    map[[16]byte]string
}

// nodeListener forwards to one upstream broker of a multi-broker cluster.
type nodeListener struct {
	ln     net.Listener
	port   int32
	target string // the broker's upstream host:port
}

// New returns a gateway forwarding to the upstream bootstrap servers. It does
// not listen until Start.
func New(upstream []string, auth Authenticator, opts ...Option) (*Gateway, error) {
	if len(upstream) == 0 {
		return nil, errors.New("new gateway: no upstream bootstrap servers")
	}
	if auth == nil {
		return nil, errors.New("new gateway: nil authenticator")
	}
	g := &Gateway{
		upstream:    append([]string(nil), upstream...),
		auth:        auth,
		listenAddr:  "127.0.0.1:0",
		log:         slog.Default(),
		authTimeout: defaultAuthTimeout,
		maxConns:    DefaultMaxConnections,
		idleTimeout: DefaultIdleTimeout,
		nodes:       map[int32]*nodeListener{},
		sessions:    map[*session]struct{}{},
		byKey:       map[string]map[*session]struct{}{},
		topicIDs:    map[[16]byte]string{},
	}
	for _, o := range opts {
		o(g)
	}
	g.ctx, g.cancel = context.WithCancel(context.Background())
	return g, nil
}

// Start listens and serves connections in the background.
func (g *Gateway) Start() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.started || g.closed {
		return errors.New("start gateway: already started")
	}
	ln, err := net.Listen("tcp", g.listenAddr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	adv := g.advertised
	if adv == "" {
		adv = ln.Addr().String()
		if ap, err := netip.ParseAddrPort(adv); err == nil && ap.Addr().IsUnspecified() {
			adv = net.JoinHostPort("127.0.0.1", strconv.Itoa(int(ap.Port())))
		}
	}
	host, port, err := splitHostPort(adv)
	if err != nil {
		ln.Close()
		return fmt.Errorf("parse advertised address: %w", err)
	}
	g.ln, g.advHost, g.advPort, g.started = ln, host, port, true
	g.log.Debug("kafka gateway listening", "addr", ln.Addr().String(), "advertised", adv, "upstream", g.upstream)
	g.wg.Add(1)
	go g.accept(ln, nil)
	return nil
}

// Addr returns the advertised host:port; it is valid after Start.
func (g *Gateway) Addr() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.started {
		return ""
	}
	return net.JoinHostPort(g.advHost, strconv.Itoa(int(g.advPort)))
}

// Advertise changes the host:port that Addr and broker metadata hand out,
// for a gateway reached through an address known only once it listens (a
// container's published port).
func (g *Gateway) Advertise(hostport string) error {
	host, port, err := splitHostPort(hostport)
	if err != nil {
		return fmt.Errorf("parse advertised address: %w", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.started {
		return errors.New("advertise: the gateway is not listening")
	}
	g.advHost, g.advPort = host, port
	return nil
}

// Revoke closes every live session authenticated with keyID and returns how
// many it closed. The Authenticator must already refuse the key, or clients
// simply reconnect.
func (g *Gateway) Revoke(keyID string) int {
	g.mu.Lock()
	var victims []*session
	for s := range g.byKey[keyID] {
		victims = append(victims, s)
	}
	g.mu.Unlock()
	for _, s := range victims {
		g.log.Warn("kafka gateway: session revoked", "key", keyID, "client", s.client.RemoteAddr().String())
		s.close()
	}
	return len(victims)
}

// Close stops listening, closes every session and waits for the gateway's
// goroutines to end.
func (g *Gateway) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	var lns []net.Listener
	if g.ln != nil {
		lns = append(lns, g.ln)
	}
	for _, n := range g.nodes {
		lns = append(lns, n.ln)
	}
	var all []*session
	for s := range g.sessions {
		all = append(all, s)
	}
	g.mu.Unlock()
	g.cancel()
	var errs []error
	for _, ln := range lns {
		if err := ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
	}
	for _, s := range all {
		s.close()
	}
	g.wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close gateway: %w", err)
	}
	return nil
}

// accept serves ln; node is nil for the main listener.
func (g *Gateway) accept(ln net.Listener, node *nodeListener) {
	defer g.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				g.log.Warn("kafka gateway: accept", "err", err)
			}
			return
		}
		g.mu.Lock()
		full := g.fullLocked()
		g.mu.Unlock()
		if full {
			g.refuseFull(c)
			continue
		}
		if g.tls != nil {
			c = tls.Server(c, g.tls)
		}
		s := newSession(g, c, node)
		g.mu.Lock()
		if g.closed {
			g.mu.Unlock()
			c.Close()
			continue
		}
		g.sessions[s] = struct{}{}
		g.wg.Add(1)
		g.mu.Unlock()
		go s.serve()
	}
}

// register records that s authenticated with keyID.
func (g *Gateway) register(s *session, keyID string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.byKey[keyID] == nil {
		g.byKey[keyID] = map[*session]struct{}{}
	}
	g.byKey[keyID][s] = struct{}{}
	s.keyID = keyID
}

// forget drops a closed session.
func (g *Gateway) forget(s *session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.sessions, s)
	if m := g.byKey[s.keyID]; m != nil {
		delete(m, s)
		if len(m) == 0 {
			delete(g.byKey, s.keyID)
		}
	}
}

// recordTopicID remembers the name of a topic id seen in upstream metadata.
func (g *Gateway) recordTopicID(id [16]byte, name string) {
	if id == ([16]byte{}) || name == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.topicIDs[id] = name
}

// topicName returns the name of a topic id, if upstream metadata showed it.
func (g *Gateway) topicName(id [16]byte) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	name, ok := g.topicIDs[id]
	return name, ok
}

// broker is one upstream broker as metadata lists it.
type broker struct {
	node int32
	host string
	port int32
}

// mapBrokers returns, for each upstream broker of a full metadata listing,
// the host and port clients should use instead.
func (g *Gateway) mapBrokers(bs []broker) []broker {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.brokerCount = len(bs)
	out := make([]broker, len(bs))
	for i, b := range bs {
		out[i] = g.mapLocked(b)
	}
	return out
}

// mapBroker maps one broker named outside a metadata listing (a coordinator).
func (g *Gateway) mapBroker(b broker) broker {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.mapLocked(b)
}

func (g *Gateway) mapLocked(b broker) broker {
	single := g.brokerCount == 1 || (g.brokerCount == 0 && len(g.upstream) == 1)
	if single || g.closed {
		return broker{node: b.node, host: g.advHost, port: g.advPort}
	}
	target := net.JoinHostPort(b.host, strconv.Itoa(int(b.port)))
	n := g.nodes[b.node]
	if n == nil {
		host, _, _ := net.SplitHostPort(g.ln.Addr().String())
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			g.log.Warn("kafka gateway: listen for broker; pointing it at the main listener", "node", b.node, "err", err)
			return broker{node: b.node, host: g.advHost, port: g.advPort}
		}
		_, port, _ := splitHostPort(ln.Addr().String())
		n = &nodeListener{ln: ln, port: port}
		g.nodes[b.node] = n
		g.wg.Add(1)
		go g.accept(ln, n)
		g.log.Debug("kafka gateway: broker listener", "node", b.node, "addr", ln.Addr().String(), "upstream", target)
	}
	n.target = target
	return broker{node: b.node, host: g.advHost, port: n.port}
}

// nodeTarget returns the upstream address of a node listener.
func (g *Gateway) nodeTarget(n *nodeListener) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return n.target
}

func splitHostPort(hostport string) (string, int32, error) {
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return "", 0, fmt.Errorf("port %q: %w", p, err)
	}
	return host, int32(port), nil
}
