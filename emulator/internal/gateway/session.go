package gateway

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

const (
	// maxInFlight bounds the responses a connection may owe its client.
	maxInFlight = 128
	// maxPassThrough bounds a response forwarded without being parsed.
	maxPassThrough   int32 = 1 << 30
	dialTimeout            = 10 * time.Second
	authCheckTimeout       = 10 * time.Second
	bufSize                = 64 << 10
)

// session is one client connection and its upstream connection.
type session struct {
	g      *Gateway
	node   *nodeListener // nil on the main listener
	client net.Conn
	cr     *bufio.Reader
	cw     *bufio.Writer
	log    *slog.Logger

	queue chan pending // responses owed to the client, in request order
	done  chan struct{}
	once  sync.Once

	mu     sync.Mutex
	closed bool
	up     net.Conn
	ur     *bufio.Reader // read by the writer goroutine only
	uw     *bufio.Writer // written by the reader goroutine only
	keyID  string        // guarded by g.mu, set once authenticated

	// State of the reader goroutine.
	handshake int16 // SaslHandshake version seen, -1 before
	rawToken  bool  // SaslHandshake v0: the next frame is a bare SASL token
	authed    bool
	grant     Grant
	// throttleNext is an injected throttle time for the request in hand.
	throttleNext int32
}

// pending is one response owed to the client.
type pending struct {
	frame      []byte // a local response, size prefix included; nil when forwarded
	key        int16
	version    int16
	fix        func(body []byte) ([]byte, error) // rewrites a forwarded response; nil passes it through
	closeAfter bool
}

// action is what the gateway does with one request.
type action struct {
	local      kmsg.Response                     // answer locally (already versioned)
	forward    bool                              // send upstream
	body       []byte                            // forward: the rewritten request body, nil for the original
	fix        func(body []byte) ([]byte, error) // forward: rewrites the response
	noReply    bool                              // forward: the upstream sends no response (Produce acks=0)
	closeAfter bool                              // close once the local answer is written
	refuse     string                            // close the connection at once; logged
}

func newSession(g *Gateway, c net.Conn, node *nodeListener) *session {
	// Until SASL completes, reads and writes share one deadline.
	c.SetDeadline(time.Now().Add(g.authTimeout))
	return &session{
		g:         g,
		node:      node,
		client:    c,
		cr:        bufio.NewReaderSize(c, bufSize),
		cw:        bufio.NewWriterSize(c, bufSize),
		log:       g.log.With("client", c.RemoteAddr().String()),
		queue:     make(chan pending, maxInFlight),
		done:      make(chan struct{}),
		handshake: -1,
	}
}

func (s *session) serve() {
	defer s.g.wg.Done()
	defer s.recoverPanic("reader")
	s.log.Debug("kafka gateway: connection opened", "local", s.client.LocalAddr().String())
	if err := s.start(); err != nil {
		s.close()
		return
	}
	if handed, err := s.route(); handed {
		return
	} else if err != nil {
		s.close()
		return
	}
	s.g.wg.Add(1)
	go s.writeLoop()
	if err := s.readLoop(); err != nil {
		if !errors.Is(err, io.EOF) && !s.isClosed() {
			s.log.Debug("kafka gateway: connection ended", "err", err)
		}
		s.close()
	}
}

// readLoop handles requests until the connection ends. It returns nil when
// the writer goroutine is left to close the connection after a last answer.
func (s *session) readLoop() error {
	for {
		s.armIdle()
		frame, err := readFrame(s.cr, s.frameLimit())
		if err != nil {
			s.idleEnded(err)
			return s.readFailed(err)
		}
		var a action
		var r *request
		if s.rawToken {
			s.rawToken = false
			if _, err := s.checkPlain(frame); err != nil {
				return fmt.Errorf("authenticate: %w", err)
			}
			// SaslHandshake v0: success is an empty frame, without header.
			if !s.enqueue(pending{frame: []byte{0, 0, 0, 0}}) {
				return net.ErrClosed
			}
			continue
		}
		if r, err = parseRequest(frame); err != nil {
			s.log.Warn("kafka gateway: bad request; closing", "err", err)
			return err
		}
		a = s.dispatch(r)
		var mute time.Duration
		a, mute = s.throttle(r, a)
		switch {
		case a.refuse != "":
			s.log.Warn("kafka gateway: refused request; closing", "api", kmsg.NameForKey(r.key), "key", r.key, "version", r.version, "client_id", r.client, "reason", a.refuse)
			return errors.New(a.refuse)
		case a.local != nil:
			body := a.local.AppendTo(nil)
			hdr := responseHeader(r.corr, responseHeaderFlexible(r.key, r.version))
			f := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(hdr)+len(body)), uint32(len(hdr)+len(body)))
			f = append(append(f, hdr...), body...)
			if !s.enqueue(pending{frame: f, closeAfter: a.closeAfter}) {
				return net.ErrClosed
			}
			if a.closeAfter {
				return nil
			}
		case a.forward:
			if err := s.send(r, a.body); err != nil {
				s.log.Warn("kafka gateway: upstream; closing", "err", err)
				return err
			}
			if a.noReply {
				continue
			}
			if !s.enqueue(pending{key: r.key, version: r.version, fix: a.fix}) {
				return net.ErrClosed
			}
			s.mute(mute)
		}
	}
}

// mute waits d before the next request is read (an injected throttle).
func (s *session) mute(d time.Duration) {
	if d <= 0 {
		return
	}
	select {
	case <-time.After(d):
	case <-s.done:
	}
}

// enqueue owes the client a response; false when the session is closing.
func (s *session) enqueue(p pending) bool {
	select {
	case s.queue <- p:
		return true
	case <-s.done:
		return false
	}
}

// send writes a request upstream, with body replacing the original one
// when not nil. It dials on first use.
func (s *session) send(r *request, body []byte) error {
	if err := s.dial(); err != nil {
		return err
	}
	if body == nil {
		body = r.body
	}
	if err := writeFrame(s.uw, r.header, body); err != nil {
		return fmt.Errorf("write upstream: %w", err)
	}
	if err := s.uw.Flush(); err != nil {
		return fmt.Errorf("write upstream: %w", err)
	}
	return nil
}

// dial opens the upstream connection unless it is open.
func (s *session) dial() error {
	if s.uw != nil {
		return nil
	}
	targets := s.g.upstream
	if s.node != nil {
		targets = []string{s.g.nodeTarget(s.node)}
	}
	d := net.Dialer{Timeout: dialTimeout}
	var errs []error
	for _, t := range targets {
		c, err := d.DialContext(s.g.ctx, "tcp", t)
		if err == nil {
			var sc net.Conn
			if sc, err = s.g.upSec.secure(s.g.ctx, c, t); err != nil {
				c.Close()
			}
			c = sc
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return net.ErrClosed
		}
		s.up, s.ur, s.uw = c, bufio.NewReaderSize(c, bufSize), bufio.NewWriterSize(c, bufSize)
		s.mu.Unlock()
		s.log.Debug("kafka gateway: upstream connected", "upstream", t)
		return nil
	}
	return fmt.Errorf("dial upstream: %w", errors.Join(errs...))
}

// writeLoop writes the responses owed to the client, in order.
func (s *session) writeLoop() {
	defer s.g.wg.Done()
	defer s.recoverPanic("writer")
	for {
		var p pending
		select {
		case p = <-s.queue:
		case <-s.done:
			return
		}
		if err := s.respond(p); err != nil {
			if !s.isClosed() {
				s.log.Debug("kafka gateway: connection ended", "err", err)
			}
			s.close()
			return
		}
		if p.closeAfter {
			s.close()
			return
		}
	}
}

// respond writes one response to the client.
func (s *session) respond(p pending) error {
	switch {
	case p.frame != nil:
		if _, err := s.cw.Write(p.frame); err != nil {
			return err
		}
	case p.fix == nil:
		n, err := readSize(s.ur, maxPassThrough)
		if err != nil {
			return fmt.Errorf("read upstream: %w", err)
		}
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], uint32(n))
		if _, err := s.cw.Write(b[:]); err != nil {
			return err
		}
		if err := s.pass(n); err != nil {
			return fmt.Errorf("copy response: %w", err)
		}
	default:
		frame, err := readFrame(s.ur, maxFrame)
		if err != nil {
			return fmt.Errorf("read upstream: %w", err)
		}
		hdr, body, err := splitResponse(frame, responseHeaderFlexible(p.key, p.version))
		if err != nil {
			return err
		}
		if body, err = p.fix(body); err != nil {
			return fmt.Errorf("rewrite %s response: %w", kmsg.NameForKey(p.key), err)
		}
		if err := writeFrame(s.cw, hdr, body); err != nil {
			return err
		}
	}
	// Flush unless more answers are ready to go out with this one.
	if len(s.queue) == 0 || p.frame != nil || s.ur.Buffered() == 0 {
		return s.cw.Flush()
	}
	return nil
}

func (s *session) isClosed() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// close ends the session and its upstream connection; it is idempotent.
func (s *session) close() {
	s.once.Do(func() {
		close(s.done)
		s.client.Close()
		s.mu.Lock()
		s.closed = true
		up := s.up
		s.mu.Unlock()
		if up != nil {
			up.Close()
		}
		s.g.forget(s)
		s.log.Debug("kafka gateway: connection closed")
	})
}

// checkPlain checks a SASL PLAIN token (authzid NUL username NUL password)
// and, when the authenticator accepts it, grants the session.
func (s *session) checkPlain(token []byte) (Grant, error) {
	user, pass, err := parsePlain(token)
	if err != nil {
		s.log.Warn("kafka gateway: authentication refused", "err", err)
		return Grant{}, err
	}
	ctx, cancel := context.WithTimeout(s.g.ctx, authCheckTimeout)
	defer cancel()
	grant, err := s.g.auth(ctx, user, pass)
	if err != nil {
		s.log.Warn("kafka gateway: authentication refused", "user", user, "err", err)
		return Grant{}, err
	}
	s.authed, s.grant = true, grant
	s.client.SetDeadline(time.Time{})
	s.g.register(s, grant.KeyID)
	s.log.Debug("kafka gateway: authenticated", "key", grant.KeyID, "topic", grant.Topic)
	return grant, nil
}
