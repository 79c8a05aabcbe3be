package eventhubs

import (
	"context"
	"encoding/binary"
	"math"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// maxReadBatch bounds the events asked of the host at once (never more
// than the link's credit). A Kafka batch the SDKs send holds up to a few
// thousand events, and each Host.Read decodes the batches it touches, so
// reads of a few hundred threw most of each decoded batch away.
const maxReadBatch = 1024

// outLink is the door's sending end of a link the client receives on; the
// connection's mu guards credit, deliveryCount, drain and queue.
type outLink struct {
	l             *link
	credit        uint32
	deliveryCount uint32
	drain         bool
	settled       bool // deliveries go settled unless the client asked for unsettled ones
	queue         []*amqp.Message
	wakeCh        chan struct{}
	pos           Position
	tag           uint64
}

// newOutLink makes the sending end for a client's receiver attach. As
// Event Hubs does, it sends deliveries settled unless the client asks for
// snd-settle-mode unsettled: the SDKs never settle what they receive.
func newOutLink(l *link, a *amqp.Attach) *outLink {
	return &outLink{l: l, settled: a.SndSettleMode != amqp.SndUnsettled, wakeCh: make(chan struct{}, 1)}
}

// takeFlow applies a client's flow; the caller holds mu.
func (o *outLink) takeFlow(f *amqp.Flow) {
	if f.LinkCredit == nil {
		return
	}
	dc := o.deliveryCount
	if f.DeliveryCount != nil {
		dc = *f.DeliveryCount
	}
	o.credit = dc + *f.LinkCredit - o.deliveryCount
	if o.credit > 1<<30 { // the client's count ran ahead of the door's
		o.credit = 0
	}
	o.drain = f.Drain
}

// wake nudges the pump.
func (o *outLink) wake() {
	select {
	case o.wakeCh <- struct{}{}:
	default:
	}
}

// enqueue adds an RPC reply; false when the queue is full.
func (o *outLink) enqueue(m *amqp.Message) bool {
	c := o.l.s.c
	c.mu.Lock()
	full := len(o.queue) >= maxReplies
	if !full {
		o.queue = append(o.queue, m)
	}
	c.mu.Unlock()
	o.wake()
	return !full
}

// run is the link's pump: it sends while the client gives credit.
func (o *outLink) run() {
	ctx := o.l.ctx
	for ctx.Err() == nil {
		var more bool
		var err *amqp.Error
		if o.l.addr.kind == nodePartition {
			more, err = o.pumpEvents()
		} else {
			more, err = o.pumpReplies()
		}
		if err != nil {
			o.l.detachWith(err)
			return
		}
		if more {
			continue
		}
		wait := time.Hour
		if o.l.addr.kind == nodePartition && o.available() > 0 {
			wait = o.l.s.c.opts.PollInterval
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-o.wakeCh:
		case <-t.C:
		}
		t.Stop()
	}
}

// available returns the credit left.
func (o *outLink) available() uint32 {
	c := o.l.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	return o.credit
}

// pumpReplies sends queued replies while there is credit.
func (o *outLink) pumpReplies() (bool, *amqp.Error) {
	c := o.l.s.c
	c.mu.Lock()
	if o.credit == 0 || len(o.queue) == 0 {
		c.mu.Unlock()
		o.finishDrain()
		return false, nil
	}
	m := o.queue[0]
	o.queue = o.queue[1:]
	c.mu.Unlock()
	if err := o.sendMessage(m); err != nil {
		return false, err
	}
	return true, nil
}

// finishDrain ends a drain: the credit left is used up and reported.
func (o *outLink) finishDrain() {
	c := o.l.s.c
	c.mu.Lock()
	if !o.drain {
		c.mu.Unlock()
		return
	}
	o.deliveryCount += o.credit
	o.credit, o.drain = 0, false
	var f amqp.Flow
	o.l.s.flowFields(&f)
	o.l.flowFields(&f)
	f.Drain = true
	c.mu.Unlock()
	c.write(o.l.s.ch, &f, nil)
}

// sendMessage encodes m and sends it as one delivery.
func (o *outLink) sendMessage(m *amqp.Message) *amqp.Error {
	b, err := m.Marshal()
	if err != nil {
		return &amqp.Error{Condition: amqp.CondInternalError, Description: err.Error()}
	}
	if err := o.deliver(b); err != nil {
		return &amqp.Error{Condition: amqp.CondInternalError, Description: err.Error()}
	}
	return nil
}

// deliver sends payload as one delivery split into frames of the peer's
// size. It waits for room under the unsettled bound and takes a credit.
func (o *outLink) deliver(payload []byte) error {
	s, c := o.l.s, o.l.s.c
	c.mu.Lock()
	for !o.settled && c.unsettled >= c.opts.MaxUnsettled && !c.dead && !s.ended && o.l.ctx.Err() == nil {
		c.cond.Wait()
	}
	if o.credit > 0 {
		o.credit--
	}
	o.deliveryCount++
	c.mu.Unlock()
	o.tag++
	tag := binary.BigEndian.AppendUint64(nil, o.tag)
	format := uint32(0)
	maxID := uint32(math.MaxUint32)
	head, err := amqp.EncodePerformative(&amqp.Transfer{Handle: o.l.handle, DeliveryID: &maxID, DeliveryTag: tag, MessageFormat: &format, Settled: true, More: true})
	if err != nil {
		return err
	}
	room := int(c.maxOut) - 8 - len(head)
	first := true
	for first || len(payload) > 0 {
		n := min(room, len(payload))
		t := &amqp.Transfer{Handle: o.l.handle, Settled: o.settled, More: n < len(payload)}
		if first {
			t.DeliveryTag, t.MessageFormat = tag, &format
		}
		if err := s.sendTransfer(t, payload[:n], first, o); err != nil {
			return err
		}
		payload, first = payload[n:], false
	}
	return nil
}

// sendTransfer writes one transfer frame once the client's session window
// has room, numbering the delivery on its first frame.
func (s *session) sendTransfer(t *amqp.Transfer, chunk []byte, first bool, o *outLink) error {
	c := s.c
	for {
		c.mu.Lock()
		for s.remoteWindow == 0 && !c.dead && !s.ended && o.l.ctx.Err() == nil {
			c.cond.Wait()
		}
		c.mu.Unlock()
		if err := o.l.ctx.Err(); err != nil {
			return err
		}
		c.wmu.Lock()
		c.mu.Lock()
		if s.ended || o.l.ctx.Err() != nil { // end or detach may be on the wire already
			c.mu.Unlock()
			c.wmu.Unlock()
			return context.Canceled
		}
		if s.remoteWindow == 0 {
			c.mu.Unlock()
			c.wmu.Unlock()
			continue
		}
		s.remoteWindow--
		s.nextOutgoingID++
		if first {
			id := s.nextDelivery
			s.nextDelivery++
			t.DeliveryID = &id
			if !t.Settled {
				s.unsettled[id] = o.l
				c.unsettled++
			}
		}
		c.mu.Unlock()
		err := c.writeLocked(s.ch, t, chunk)
		c.wmu.Unlock()
		return err
	}
}
