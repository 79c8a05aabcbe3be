package eventhubs

import (
	"fmt"
	"math"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// sessionWindow is the incoming window (in transfer frames) the door
// grants each session; it is restored when half is used.
const sessionWindow = 2048

// session is one session; the connection's mu guards its fields.
type session struct {
	c              *conn
	ch             uint16
	links          map[uint32]*link // by the client's handle, which the door reuses
	nextIncomingID uint32
	inWindow       uint32
	nextOutgoingID uint32
	remoteWindow   uint32
	nextDelivery   uint32
	unsettled      map[uint32]*link // outgoing deliveries the client has not settled
	ended          bool
}

// begin answers a client's begin on channel ch.
func (c *conn) begin(ch uint16, b *amqp.Begin) error {
	if b.RemoteChannel != nil {
		return connError(amqp.CondNotAllowed, "a client's begin has no remote-channel")
	}
	if int(ch) >= c.opts.MaxSessions {
		return connError(amqp.CondResourceLimitExceeded, fmt.Sprintf("channel %d is above channel-max %d", ch, c.opts.MaxSessions-1))
	}
	c.mu.Lock()
	if c.sessions[ch] != nil {
		c.mu.Unlock()
		return connError(amqp.CondIllegalState, fmt.Sprintf("channel %d already has a session", ch))
	}
	c.sessions[ch] = &session{
		c: c, ch: ch, links: map[uint32]*link{}, nextIncomingID: b.NextOutgoingID,
		inWindow: sessionWindow, remoteWindow: b.IncomingWindow, unsettled: map[uint32]*link{},
	}
	c.mu.Unlock()
	return c.write(ch, &amqp.Begin{
		RemoteChannel: &ch, IncomingWindow: sessionWindow, OutgoingWindow: math.MaxUint32,
		HandleMax: uint32(c.opts.MaxLinks - 1),
	}, nil)
}

// end answers a client's end: its links stop and the session goes.
func (c *conn) end(s *session, _ *amqp.End) error {
	c.mu.Lock()
	links := s.detachAll()
	delete(c.sessions, s.ch)
	c.mu.Unlock()
	for _, l := range links {
		if l.in != nil {
			l.in.release()
		}
		l.stop()
	}
	return c.write(s.ch, &amqp.End{}, nil)
}

// detachAll forgets every link of s and returns them; the caller holds mu.
func (s *session) detachAll() []*link {
	s.ended = true
	links := make([]*link, 0, len(s.links))
	for h, l := range s.links {
		links = append(links, l)
		delete(s.links, h)
		s.c.links--
	}
	s.c.unsettled -= len(s.unsettled)
	s.unsettled = map[uint32]*link{}
	s.c.cond.Broadcast()
	return links
}

// handle dispatches a performative of this session.
func (s *session) handle(p amqp.Performative, payload []byte) error {
	switch p := p.(type) {
	case *amqp.Attach:
		return s.attach(p)
	case *amqp.Flow:
		return s.flow(p)
	case *amqp.Transfer:
		return s.transfer(p, payload)
	case *amqp.Disposition:
		return s.disposition(p)
	case *amqp.Detach:
		return s.detach(p)
	}
	return connError(amqp.CondNotAllowed, fmt.Sprintf("unexpected %s", amqp.PerformativeName(p)))
}

// flowFields fills the session part of a flow; the caller holds mu.
func (s *session) flowFields(f *amqp.Flow) {
	next := s.nextIncomingID
	f.NextIncomingID = &next
	f.IncomingWindow = s.inWindow
	f.NextOutgoingID = s.nextOutgoingID
	f.OutgoingWindow = math.MaxUint32
}

// flow takes a client's flow: the session window, and a link's credit.
func (s *session) flow(f *amqp.Flow) error {
	c := s.c
	c.mu.Lock()
	if f.NextIncomingID != nil {
		s.remoteWindow = *f.NextIncomingID + f.IncomingWindow - s.nextOutgoingID
	} else {
		s.remoteWindow = f.IncomingWindow - s.nextOutgoingID
	}
	var l *link
	if f.Handle != nil {
		if l = s.links[*f.Handle]; l == nil {
			c.mu.Unlock()
			return connError(amqp.CondUnattachedHandle, fmt.Sprintf("flow for handle %d, which is not attached", *f.Handle))
		}
		l.takeFlow(f)
	}
	c.cond.Broadcast()
	echo := f.Echo
	var reply amqp.Flow
	if echo {
		s.flowFields(&reply)
		if l != nil {
			l.flowFields(&reply)
		}
	}
	c.mu.Unlock()
	if l != nil {
		l.wake()
	}
	if echo {
		return c.write(s.ch, &reply, nil)
	}
	return nil
}

// transfer takes one transfer frame of a client's delivery.
func (s *session) transfer(t *amqp.Transfer, payload []byte) error {
	c := s.c
	c.mu.Lock()
	if s.inWindow == 0 {
		c.mu.Unlock()
		return connError(amqp.CondWindowViolation, "transfer beyond the session's incoming window")
	}
	s.inWindow--
	s.nextIncomingID++
	var refill *amqp.Flow
	if s.inWindow < sessionWindow/2 {
		s.inWindow = sessionWindow
		refill = &amqp.Flow{}
		s.flowFields(refill)
	}
	l := s.links[t.Handle]
	detached := l != nil && l.detachSent
	c.mu.Unlock()
	if refill != nil {
		if err := c.write(s.ch, refill, nil); err != nil {
			return err
		}
	}
	if l == nil || l.in == nil {
		return connError(amqp.CondUnattachedHandle, fmt.Sprintf("transfer on handle %d, which is not an attached sender", t.Handle))
	}
	if detached {
		return nil // in flight when the door detached the link
	}
	return l.in.transfer(t, payload)
}

// disposition settles deliveries the door sent.
func (s *session) disposition(d *amqp.Disposition) error {
	if d.Role != amqp.RoleReceiver {
		return nil // the door settles the deliveries it receives at once
	}
	last := d.First
	if d.Last != nil {
		last = *d.Last
	}
	c := s.c
	c.mu.Lock()
	for id := d.First; ; id++ {
		if _, ok := s.unsettled[id]; ok {
			delete(s.unsettled, id)
			c.unsettled--
		}
		if id == last || last-d.First > 1<<20 {
			break
		}
	}
	c.cond.Broadcast()
	c.mu.Unlock()
	if d.Settled {
		return nil
	}
	return c.write(s.ch, &amqp.Disposition{Role: amqp.RoleSender, First: d.First, Last: d.Last, Settled: true, State: d.State}, nil)
}
