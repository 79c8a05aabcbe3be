package eventhubs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"
)

// Options bound what one connection may use. Zero fields take the
// defaults of DefaultOptions.
type Options struct {
	SASLTimeout      time.Duration // to finish the protocol headers, SASL and open
	MaxFrameSize     uint32        // announced in open
	PreAuthFrameSize uint32        // largest frame read before open
	IdleTimeout      time.Duration // announced in open; the peer must send within it
	MaxSessions      int           // per connection
	MaxLinks         int           // per connection
	MaxUnsettled     int           // unsettled outgoing deliveries per connection
	MaxTokens        int           // CBS tokens held per connection
	MaxMessageSize   uint64        // per message, announced on sending links (Fabric's 1 MB)
	LinkCredit       uint32        // credit granted to a client's sender
	PollInterval     time.Duration // between Host.Read calls that returned nothing
	MaxConnections   int           // connections served at once; one over is closed at accept
	Inactivity       time.Duration // an open connection with no link and no frame but heartbeats is closed after it
	ContainerID      string
	Logger           *slog.Logger
	Now              func() time.Time
}

// DefaultOptions are the bounds a zero Options gets.
var DefaultOptions = Options{
	SASLTimeout:      10 * time.Second,
	MaxFrameSize:     256 * 1024,
	PreAuthFrameSize: 4096,
	IdleTimeout:      60 * time.Second,
	MaxSessions:      256, // azeventhubs opens a session per link
	MaxLinks:         512,
	MaxUnsettled:     2048,
	MaxTokens:        64,
	MaxMessageSize:   1024 * 1024,
	LinkCredit:       300,
	PollInterval:     20 * time.Millisecond,
	MaxConnections:   1000,
	Inactivity:       5 * time.Minute,
	ContainerID:      "fabrictest-eventhubs",
}

// withDefaults fills zero fields from DefaultOptions.
func (o Options) withDefaults() Options {
	d := DefaultOptions
	pick(&o.SASLTimeout, d.SASLTimeout)
	pick(&o.MaxFrameSize, d.MaxFrameSize)
	pick(&o.PreAuthFrameSize, d.PreAuthFrameSize)
	pick(&o.IdleTimeout, d.IdleTimeout)
	pick(&o.MaxSessions, d.MaxSessions)
	pick(&o.MaxLinks, d.MaxLinks)
	pick(&o.MaxUnsettled, d.MaxUnsettled)
	pick(&o.MaxTokens, d.MaxTokens)
	pick(&o.MaxMessageSize, d.MaxMessageSize)
	pick(&o.LinkCredit, d.LinkCredit)
	pick(&o.PollInterval, d.PollInterval)
	pick(&o.MaxConnections, d.MaxConnections)
	pick(&o.Inactivity, d.Inactivity)
	pick(&o.ContainerID, d.ContainerID)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// pick sets *v to def when it is zero.
func pick[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// Server serves the Event Hubs protocol on listeners.
type Server struct {
	host   Host
	opts   Options
	owners *owners
	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	wg        sync.WaitGroup
	closed    bool
}

// NewServer returns a server answering for host.
func NewServer(host Host, opts Options) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{
		host: host, opts: opts.withDefaults(), owners: newOwners(), ctx: ctx, cancel: cancel,
		listeners: map[net.Listener]struct{}{}, conns: map[*conn]struct{}{},
	}
}

// ErrServerClosed is returned by Serve after Close.
var ErrServerClosed = errors.New("eventhubs: server closed")

// Serve accepts connections on l until Close; it always returns an error.
func (s *Server) Serve(l net.Listener) error {
	if !s.track(l) {
		return ErrServerClosed
	}
	defer s.untrack(l)
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.isClosed() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			return fmt.Errorf("accept: %w", err)
		}
		s.start(nc)
	}
}

// ServeConn serves one connection accepted elsewhere (the Kafka endpoint,
// which hands over the connections that open with the AMQP header, their
// first bytes unread) in its own goroutine, as Serve does its listener's;
// it closes nc when the server is closed.
func (s *Server) ServeConn(nc net.Conn) { s.start(nc) }

// start runs a connection in its own goroutine.
func (s *Server) start(nc net.Conn) {
	c := newConn(s, nc)
	s.mu.Lock()
	if s.closed || len(s.conns) >= s.opts.MaxConnections {
		full := !s.closed
		s.mu.Unlock()
		if full {
			s.opts.Logger.Warn("eventhubs: connection limit reached; closing the new connection", "limit", s.opts.MaxConnections, "remote", nc.RemoteAddr().String())
		}
		nc.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		c.serve()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
}

// track records a listener; false once the server is closed.
func (s *Server) track(l net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.listeners[l] = struct{}{}
	return true
}

// untrack forgets a listener.
func (s *Server) untrack(l net.Listener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.listeners, l)
}

// isClosed reports whether Close was called.
func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close stops the listeners, closes every connection with
// amqp:connection:forced and waits for them to end.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for l := range s.listeners {
		l.Close()
	}
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	s.cancel()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.shutdown("server closing")
		}()
	}
	wg.Wait()
	s.wg.Wait()
	return nil
}

// RevokeKey closes every connection holding a grant that came from keyID
// (a regenerated key), with amqp:unauthorized-access.
func (s *Server) RevokeKey(keyID string) int {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	n := 0
	for _, c := range conns {
		if c.usesKey(keyID) {
			c.revoke(keyID)
			n++
		}
	}
	return n
}
