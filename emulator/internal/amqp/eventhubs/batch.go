package eventhubs

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// sendEvents sends stored events as deliveries and moves the link's
// position past each one sent. Settled events that fit one frame go out
// many to a write; others one by one.
func (o *outLink) sendEvents(events []StoredEvent) *amqp.Error {
	var payloads [][]byte
	var last []int64 // sequence numbers of payloads
	flush := func() *amqp.Error {
		n, err := o.sendSettled(payloads)
		if n > 0 {
			o.pos = Position{Kind: FromSequence, Value: last[n-1]}
		}
		payloads, last = payloads[:0], last[:0]
		if err != nil && o.l.ctx.Err() == nil {
			return &amqp.Error{Condition: amqp.CondInternalError, Description: err.Error()}
		}
		return nil
	}
	room := int(o.l.s.c.maxOut) - 64 // a settled transfer's head is under 64 bytes
	for i := range events {
		b, err := eventMessage(&events[i]).Marshal()
		if err != nil {
			return &amqp.Error{Condition: amqp.CondInternalError, Description: err.Error()}
		}
		if o.settled && len(b) <= room {
			payloads, last = append(payloads, b), append(last, events[i].SequenceNumber)
			continue
		}
		if e := flush(); e != nil {
			return e
		}
		if o.available() == 0 {
			return nil // the client took credit back
		}
		if err := o.deliver(b); err != nil {
			return nil // the link or connection is going
		}
		o.pos = Position{Kind: FromSequence, Value: events[i].SequenceNumber}
	}
	return flush()
}

// sendSettled writes settled single-frame deliveries, as many per write
// as the session window and link credit allow. It returns how many went.
func (o *outLink) sendSettled(payloads [][]byte) (int, error) {
	sent := 0
	for sent < len(payloads) {
		n, err := o.writeSettled(payloads[sent:])
		sent += n
		if err != nil || n == 0 {
			return sent, err
		}
	}
	return sent, nil
}

// writeSettled writes as many of payloads as it may in one write; 0 when
// the link has no credit left.
func (o *outLink) writeSettled(payloads [][]byte) (int, error) {
	s, c, ctx := o.l.s, o.l.s.c, o.l.ctx
	if err := s.waitWindow(ctx); err != nil {
		return 0, err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	if s.ended || ctx.Err() != nil {
		c.mu.Unlock()
		return 0, context.Canceled
	}
	n := min(uint32(len(payloads)), s.remoteWindow, o.credit)
	first := s.nextDelivery
	s.nextDelivery += n
	s.nextOutgoingID += n
	s.remoteWindow -= n
	o.credit -= n
	o.deliveryCount += n
	c.mu.Unlock()
	buf, zero := c.wbuf[:0], uint32(0)
	for i := range n {
		id := first + i
		o.tag++
		t := &amqp.Transfer{Handle: o.l.handle, DeliveryID: &id, DeliveryTag: binary.BigEndian.AppendUint64(nil, o.tag), MessageFormat: &zero, Settled: true}
		var err error
		if buf, err = amqp.AppendPerformativeFrame(buf, s.ch, t, payloads[i]); err != nil {
			return 0, err
		}
	}
	c.wbuf = buf
	if n == 0 {
		return 0, nil
	}
	c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err := c.nc.Write(buf)
	return int(n), err
}

// waitWindow waits until the client's session window has room.
func (s *session) waitWindow(ctx context.Context) error {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for s.remoteWindow == 0 && !c.dead && !s.ended && ctx.Err() == nil {
		c.cond.Wait()
	}
	if c.dead || s.ended {
		return context.Canceled
	}
	return ctx.Err()
}
