package eventhubs

import (
	"fmt"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// maxPartialMessages bounds the bytes of deliveries still arriving on a
// connection, in max-message-sizes.
const maxPartialMessages = 4

// inLink is the door's receiving end of a link the client sends on; the
// connection's mu guards credit and deliveryCount, the read loop owns the
// rest.
type inLink struct {
	l             *link
	credit        uint32
	deliveryCount uint32
	busy          bool // a delivery's frames are arriving
	id            uint32
	settled       bool
	format        uint32
	buf           []byte
	size          uint64 // bytes of the delivery so far
}

// grant sends the link credit the door gives.
func (in *inLink) grant() error {
	c := in.l.s.c
	var f amqp.Flow
	c.mu.Lock()
	in.credit = c.opts.LinkCredit
	in.l.s.flowFields(&f)
	in.l.flowFields(&f)
	c.mu.Unlock()
	return c.write(in.l.s.ch, &f, nil)
}

// transfer takes one frame of a delivery.
func (in *inLink) transfer(t *amqp.Transfer, payload []byte) error {
	if !in.busy {
		if err := in.start(t); err != nil {
			return err
		}
	}
	if t.Aborted {
		in.reset()
		return nil
	}
	limit := in.l.s.c.opts.MaxMessageSize
	in.size += uint64(len(payload))
	oversize := in.size > limit
	if oversize {
		in.release() // the rest of the delivery is counted, not kept
	}
	if t.More {
		if !oversize {
			return in.keep(payload)
		}
		return nil
	}
	if len(in.buf) > 0 {
		payload = append(in.buf, payload...)
	}
	in.l.s.c.partial -= len(in.buf)
	in.buf = nil
	id, settled, format, size := in.id, in.settled, in.format, in.size
	in.reset()
	if err := in.refill(); err != nil {
		return err
	}
	var e *amqp.Error
	if oversize {
		e = &amqp.Error{Condition: amqp.CondMessageSizeExceeded, Description: fmt.Sprintf("The received message (delivery-id:%d, size:%d bytes) exceeds the limit (%d bytes) currently allowed on the link.", id, size, limit)}
	} else {
		e = in.l.deliver(format, payload)
	}
	return in.settle(id, settled, e)
}

// start begins a delivery on its first frame and takes a credit.
func (in *inLink) start(t *amqp.Transfer) error {
	if t.DeliveryID == nil {
		return connError(amqp.CondNotAllowed, "the first transfer of a delivery has no delivery-id")
	}
	c := in.l.s.c
	c.mu.Lock()
	noCredit := in.credit == 0
	if !noCredit {
		in.credit--
		in.deliveryCount++
	}
	c.mu.Unlock()
	if noCredit {
		return in.l.detachWith(&amqp.Error{Condition: amqp.CondTransferLimitExceeded, Description: "transfer without link credit"})
	}
	in.busy, in.id, in.settled = true, *t.DeliveryID, t.Settled
	in.format = 0
	if t.MessageFormat != nil {
		in.format = *t.MessageFormat
	}
	return nil
}

// reset forgets the delivery in progress.
func (in *inLink) reset() {
	in.release()
	in.busy, in.size = false, 0
}

// keep buffers a frame of a delivery, within the connection's bound on
// partial deliveries (read loop only).
func (in *inLink) keep(payload []byte) error {
	c := in.l.s.c
	c.partial += len(payload)
	if c.partial > maxPartialMessages*int(c.opts.MaxMessageSize) {
		return connError(amqp.CondResourceLimitExceeded, fmt.Sprintf("partial deliveries on this connection exceed %d bytes", maxPartialMessages*c.opts.MaxMessageSize))
	}
	in.buf = append(in.buf, payload...)
	return nil
}

// release drops the buffered frames.
func (in *inLink) release() {
	in.l.s.c.partial -= len(in.buf)
	in.buf = nil
}

// refill restores the link credit when half is used.
func (in *inLink) refill() error {
	c := in.l.s.c
	c.mu.Lock()
	if in.credit >= c.opts.LinkCredit/2 || in.l.detachSent {
		c.mu.Unlock()
		return nil
	}
	in.credit = c.opts.LinkCredit
	var f amqp.Flow
	in.l.s.flowFields(&f)
	in.l.flowFields(&f)
	c.mu.Unlock()
	return c.write(in.l.s.ch, &f, nil)
}

// settle answers a delivery: accepted, or rejected with e. A delivery the
// client sent settled gets no answer; a failure then detaches the link.
func (in *inLink) settle(id uint32, settled bool, e *amqp.Error) error {
	c := in.l.s.c
	if settled {
		if e != nil {
			c.log.Info("eventhubs: settled delivery failed", "link", in.l.name, "condition", string(e.Condition), "description", e.Description)
			return in.l.detachWith(e)
		}
		return nil
	}
	var state amqp.DeliveryState = &amqp.Accepted{}
	if e != nil {
		state = &amqp.Rejected{Error: e}
	}
	return c.write(in.l.s.ch, &amqp.Disposition{Role: amqp.RoleReceiver, First: id, Settled: true, State: state}, nil)
}

// deliver hands a whole message to the link's node.
func (l *link) deliver(format uint32, payload []byte) *amqp.Error {
	switch l.addr.kind {
	case nodeCBS:
		return l.rpc(payload, l.s.c.putToken)
	case nodeManagement:
		return l.rpc(payload, l.s.c.management)
	}
	return l.send(format, payload)
}
