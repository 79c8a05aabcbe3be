package eventhubs

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// writeTimeout bounds one write to a peer that does not read.
const writeTimeout = 30 * time.Second

// errPeerClosed ends the read loop after the peer's close was answered.
var errPeerClosed = errors.New("peer closed the connection")

// conn is one client connection.
type conn struct {
	srv    *Server
	host   Host
	opts   Options
	nc     net.Conn
	br     *bufio.Reader
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc

	wmu     sync.Mutex // orders frames on the wire
	wbuf    []byte
	maxOut  uint32 // the largest frame the peer takes
	beat    time.Duration
	partial int // bytes of partial deliveries buffered (read loop only)
	closing sync.Once

	mu        sync.Mutex // guards everything below
	cond      *sync.Cond // signalled when windows, credit or settlement change
	sessions  map[uint16]*session
	links     int
	unsettled int
	grants    map[string]Grant // by audience path; "" for SASL PLAIN
	dead      bool
}

// newConn wraps an accepted connection.
func newConn(s *Server, nc net.Conn) *conn {
	ctx, cancel := context.WithCancel(s.ctx)
	c := &conn{
		srv: s, host: s.host, opts: s.opts, nc: nc, br: bufio.NewReaderSize(nc, 16*1024),
		log: s.opts.Logger.With("remote", nc.RemoteAddr().String()), ctx: ctx, cancel: cancel,
		maxOut: amqp.MinMaxFrameSize, sessions: map[uint16]*session{}, grants: map[string]Grant{},
	}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// serve runs the connection to its end.
func (c *conn) serve() {
	defer c.finish()
	c.nc.SetDeadline(c.opts.Now().Add(c.opts.SASLTimeout))
	if err := c.handshake(); err != nil {
		c.log.Warn("eventhubs: connection closed during handshake", "cause", err.Error())
		return
	}
	c.nc.SetDeadline(time.Time{})
	if c.beat > 0 {
		go c.heartbeats()
	}
	if err := c.readLoop(); err != nil && !errors.Is(err, errPeerClosed) {
		c.log.Warn("eventhubs: connection closed", "cause", err.Error())
	}
}

// finish tears the connection down and releases what its links hold.
func (c *conn) finish() {
	c.mu.Lock()
	c.dead = true
	var all []*link
	for _, s := range c.sessions {
		for _, l := range s.links {
			all = append(all, l)
		}
	}
	c.cond.Broadcast()
	c.mu.Unlock()
	c.cancel()
	for _, l := range all {
		l.stop()
	}
	c.nc.Close()
}

// shutdownGrace bounds how long Close waits to send a connection's close.
const shutdownGrace = 2 * time.Second

// shutdown closes the connection from the server's side; a peer that does
// not read gets its socket closed after shutdownGrace.
func (c *conn) shutdown(why string) {
	done := make(chan struct{})
	go func() {
		c.closeWith(&amqp.Error{Condition: amqp.CondConnectionForced, Description: why})
		close(done)
	}()
	t := time.NewTimer(shutdownGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		c.nc.Close()
	}
}

// drop closes the socket at once, with no close frame: the peer sees the
// connection reset, as when a network path goes away.
func (c *conn) drop() {
	c.closing.Do(func() {
		c.cancel()
		c.nc.Close()
	})
}

// closeWith sends close with e once and closes the socket.
func (c *conn) closeWith(e *amqp.Error) {
	c.closing.Do(func() {
		c.write(0, &amqp.Close{Error: e}, nil)
		c.cancel()
		c.nc.Close()
	})
}

// write sends one performative frame.
func (c *conn) write(ch uint16, p amqp.Performative, payload []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeLocked(ch, p, payload)
}

// writeLocked sends one frame; the caller holds wmu.
func (c *conn) writeLocked(ch uint16, p amqp.Performative, payload []byte) error {
	b, err := amqp.AppendPerformativeFrame(c.wbuf[:0], ch, p, payload)
	if err != nil {
		return err
	}
	c.wbuf = b
	c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err = c.nc.Write(b)
	if cap(c.wbuf) > 1<<20 {
		c.wbuf = nil
	}
	return err
}

// heartbeats sends an empty frame every half of the peer's idle timeout.
func (c *conn) heartbeats() {
	t := time.NewTicker(c.beat)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
			c.wmu.Lock()
			c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
			_, err := c.nc.Write(amqp.Heartbeat())
			c.wmu.Unlock()
			if err != nil {
				return
			}
		}
	}
}

// readLoop reads and dispatches frames until the connection ends.
func (c *conn) readLoop() error {
	active := c.opts.Now()
	for {
		if c.opts.IdleTimeout > 0 {
			c.nc.SetReadDeadline(time.Now().Add(c.opts.IdleTimeout * 3 / 2))
		}
		f, err := amqp.ReadFrame(c.br, c.opts.MaxFrameSize)
		if err != nil {
			return c.readFailed(err)
		}
		if f.Type != amqp.FrameAMQP {
			c.closeWith(&amqp.Error{Condition: amqp.CondFramingError, Description: "SASL frame after open"})
			return errors.New("SASL frame after open")
		}
		p, payload, err := amqp.DecodeFrame(f)
		if err != nil {
			c.closeWith(&amqp.Error{Condition: amqp.Condition(err), Description: err.Error()})
			return err
		}
		if p == nil {
			if err := c.checkInactive(active); err != nil {
				return err
			}
			continue
		}
		active = c.opts.Now()
		if err := c.dispatch(f.Channel, p, payload); err != nil {
			var e *amqp.Error
			if errors.As(err, &e) {
				c.closeWith(e)
			}
			return err
		}
	}
}

// readFailed closes the connection after a failed read and explains it.
func (c *conn) readFailed(err error) error {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed), c.ctx.Err() != nil:
		return errPeerClosed
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.closeWith(&amqp.Error{Condition: amqp.CondResourceLimitExceeded, Description: "idle timeout: no frame from the peer"})
		return errors.New("idle timeout: no frame from the peer")
	}
	c.closeWith(&amqp.Error{Condition: amqp.Condition(err), Description: err.Error()})
	return err
}

// connError is a connection error: the connection closes with it.
func connError(cond amqp.Symbol, desc string) error {
	return &amqp.Error{Condition: cond, Description: desc}
}

// dispatch handles one performative.
func (c *conn) dispatch(ch uint16, p amqp.Performative, payload []byte) error {
	switch p := p.(type) {
	case *amqp.Begin:
		return c.begin(ch, p)
	case *amqp.Close:
		c.closing.Do(func() {
			c.write(0, &amqp.Close{}, nil)
			c.nc.Close()
		})
		return errPeerClosed
	case *amqp.Open:
		return connError(amqp.CondIllegalState, "open received twice")
	}
	c.mu.Lock()
	s := c.sessions[ch]
	c.mu.Unlock()
	if s == nil {
		return connError(amqp.CondIllegalState, "frame on channel without a session")
	}
	if e, ok := p.(*amqp.End); ok {
		return c.end(s, e)
	}
	return s.handle(p, payload)
}
