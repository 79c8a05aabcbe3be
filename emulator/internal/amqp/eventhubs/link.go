package eventhubs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// link is one attached link; the connection's mu guards its mutable fields.
type link struct {
	s          *session
	handle     uint32
	name       string
	addr       address
	target     string // the client's target address (where RPC replies go)
	ctx        context.Context
	cancel     context.CancelFunc
	in         *inLink  // the client sends on it
	out        *outLink // the client receives on it
	detachSent bool
	owned      string // owner key registered for an epoch receiver, "" when none
	epoch      *int64
}

// refusal is a link the door refuses: it is attached with a null
// terminus and detached at once with err.
type refusal struct{ err *amqp.Error }

// Error formats the refusal.
func (r *refusal) Error() string { return r.err.Error() }

// refuse builds a refusal.
func refuse(cond amqp.Symbol, format string, args ...any) error {
	return &refusal{err: &amqp.Error{Condition: cond, Description: fmt.Sprintf(format, args...)}}
}

// attach answers a client's attach.
func (s *session) attach(a *amqp.Attach) error {
	c := s.c
	c.mu.Lock()
	if s.links[a.Handle] != nil {
		c.mu.Unlock()
		return connError(amqp.CondHandleInUse, fmt.Sprintf("handle %d is already attached", a.Handle))
	}
	ctx, cancel := context.WithCancel(c.ctx)
	l := &link{s: s, handle: a.Handle, name: a.Name, ctx: ctx, cancel: cancel}
	s.links[a.Handle] = l
	c.links++
	over := c.links > c.opts.MaxLinks
	c.mu.Unlock()
	err := error(nil)
	if over {
		err = refuse(amqp.CondResourceLimitExceeded, "a connection holds at most %d links", c.opts.MaxLinks)
	} else {
		err = l.setup(a)
	}
	var r *refusal
	if errors.As(err, &r) {
		return l.refuse(a, r.err)
	}
	if err != nil {
		return err
	}
	return l.accept(a)
}

// setup resolves the address, checks the grant and the entity.
func (l *link) setup(a *amqp.Attach) error {
	sending := a.Role == amqp.RoleSender
	raw := ""
	switch {
	case sending && a.Target != nil:
		raw = a.Target.Address
	case !sending && a.Source != nil:
		raw = a.Source.Address
	}
	if !sending && a.Target != nil {
		l.target = a.Target.Address
	}
	addr, err := parseAddress(raw, sending)
	if err != nil {
		return refuse(amqp.CondNotFound, "%v", err)
	}
	l.addr = addr
	switch addr.kind {
	case nodeHub, nodePartition:
		if err := l.checkEntity(); err != nil {
			return err
		}
	}
	if sending {
		l.in = &inLink{l: l, credit: l.s.c.opts.LinkCredit}
		return nil
	}
	l.out = newOutLink(l, a)
	if addr.kind == nodePartition {
		return l.out.setupReceiver(a)
	}
	return nil
}

// checkEntity checks the grant for the link's hub and that the hub,
// partition and consumer group exist.
func (l *link) checkEntity() error {
	c, addr := l.s.c, l.addr
	claim := ClaimSend
	if addr.kind == nodePartition {
		claim = ClaimListen
	}
	if _, ok := c.grantFor(addr.hub, claim); !ok {
		return refuse(amqp.CondUnauthorizedAccess, "Unauthorized access. '%s' claim(s) are required to perform this operation. Resource: '%s'.", claim, addr.hub)
	}
	info, err := c.host.Hub(l.ctx, addr.hub)
	if err != nil {
		e := hostError(err)
		return &refusal{err: e}
	}
	if addr.partition >= info.PartitionCount {
		return refuse(amqp.CondNotFound, "The partition '%d' of event hub '%s' does not exist; it has %d partitions.", addr.partition, addr.hub, info.PartitionCount)
	}
	if addr.kind == nodePartition && !hasGroup(info.ConsumerGroups, addr.group) {
		return refuse(amqp.CondNotFound, "The messaging entity '%s/ConsumerGroups/%s' could not be found.", addr.hub, addr.group)
	}
	return nil
}

// hasGroup reports whether group is $Default or one of groups.
func hasGroup(groups []string, group string) bool {
	if strings.EqualFold(group, "$Default") {
		return true
	}
	for _, g := range groups {
		if strings.EqualFold(g, group) {
			return true
		}
	}
	return false
}

// reply returns the door's attach answering a.
func (l *link) reply(a *amqp.Attach) *amqp.Attach {
	r := &amqp.Attach{
		Name: a.Name, Handle: a.Handle, Role: !a.Role, SndSettleMode: a.SndSettleMode,
		RcvSettleMode: a.RcvSettleMode, Source: a.Source, Target: a.Target,
	}
	if a.Role == amqp.RoleSender {
		r.MaxMessageSize = l.s.c.opts.MaxMessageSize
	} else {
		zero := uint32(0)
		r.InitialDeliveryCount = &zero
	}
	return r
}

// accept answers the attach and starts the link.
func (l *link) accept(a *amqp.Attach) error {
	c := l.s.c
	if err := c.write(l.s.ch, l.reply(a), nil); err != nil {
		return err
	}
	if l.in != nil {
		return l.in.grant()
	}
	go l.out.run()
	return nil
}

// refuse attaches with a null terminus and detaches with e.
func (l *link) refuse(a *amqp.Attach, e *amqp.Error) error {
	c := l.s.c
	r := l.reply(a)
	if a.Role == amqp.RoleSender {
		r.Target = nil
	} else {
		r.Source = nil
	}
	c.log.Info("eventhubs: link refused", "name", a.Name, "condition", string(e.Condition), "description", e.Description)
	if err := c.write(l.s.ch, r, nil); err != nil {
		return err
	}
	return l.detachWith(e)
}

// detachWith detaches the link from the door's side with e (nil for none).
func (l *link) detachWith(e *amqp.Error) error {
	c := l.s.c
	c.mu.Lock()
	if l.detachSent || l.s.links[l.handle] != l {
		c.mu.Unlock()
		return nil
	}
	l.detachSent = true
	c.mu.Unlock()
	l.stop()
	return c.write(l.s.ch, &amqp.Detach{Handle: l.handle, Closed: true, Error: e}, nil)
}

// detach answers a client's detach.
func (s *session) detach(d *amqp.Detach) error {
	c := s.c
	c.mu.Lock()
	l := s.links[d.Handle]
	if l == nil {
		c.mu.Unlock()
		return connError(amqp.CondUnattachedHandle, fmt.Sprintf("detach of handle %d, which is not attached", d.Handle))
	}
	delete(s.links, d.Handle)
	c.links--
	for id, owner := range s.unsettled {
		if owner == l {
			delete(s.unsettled, id)
			c.unsettled--
		}
	}
	answered := l.detachSent
	c.cond.Broadcast()
	c.mu.Unlock()
	if l.in != nil {
		l.in.release()
	}
	l.stop()
	if answered {
		return nil
	}
	return c.write(s.ch, &amqp.Detach{Handle: d.Handle, Closed: d.Closed}, nil)
}

// stop ends the link's work and releases its ownership.
func (l *link) stop() {
	l.cancel()
	c := l.s.c
	c.mu.Lock()
	c.cond.Broadcast()
	c.mu.Unlock()
	if l.owned != "" {
		l.s.c.srv.owners.release(l.owned, l)
	}
}

// takeFlow applies a client's flow to the link; the caller holds mu.
func (l *link) takeFlow(f *amqp.Flow) {
	if l.out != nil {
		l.out.takeFlow(f)
	}
}

// flowFields fills the link part of a flow; the caller holds mu.
func (l *link) flowFields(f *amqp.Flow) {
	h := l.handle
	f.Handle = &h
	if l.in != nil {
		dc, cr := l.in.deliveryCount, l.in.credit
		f.DeliveryCount, f.LinkCredit = &dc, &cr
		return
	}
	dc, cr := l.out.deliveryCount, l.out.credit
	f.DeliveryCount, f.LinkCredit = &dc, &cr
	f.Drain = l.out.drain
}

// wake tells an outgoing link's pump to look again.
func (l *link) wake() {
	if l.out != nil {
		l.out.wake()
	}
}

// grantFor returns a live grant covering hub with claim.
func (c *conn) grantFor(hub, claim string) (Grant, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.opts.Now()
	for _, g := range c.grants {
		if !g.Expires.IsZero() && !now.Before(g.Expires) {
			continue
		}
		if g.Entity != "" && !strings.EqualFold(g.Entity, hub) {
			continue
		}
		if (claim == ClaimSend && g.Send) || (claim == ClaimListen && g.Listen) || (claim == "" && (g.Send || g.Listen)) {
			return g, true
		}
	}
	return Grant{}, false
}

// usesKey reports whether a grant of c came from keyID.
func (c *conn) usesKey(keyID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, g := range c.grants {
		if g.KeyID == keyID {
			return true
		}
	}
	return false
}

// revoke closes the connection because its key was regenerated.
func (c *conn) revoke(keyID string) {
	c.closeWith(&amqp.Error{Condition: amqp.CondUnauthorizedAccess, Description: fmt.Sprintf("The key '%s' was regenerated; the connection's tokens are no longer valid.", keyID)})
}
