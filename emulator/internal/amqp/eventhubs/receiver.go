package eventhubs

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// propEpoch is the link property carrying a receiver's owner level.
const propEpoch amqp.Symbol = "com.microsoft:epoch"

// setupReceiver reads a partition receiver's start position and owner
// level, and takes the partition over from lower owner levels.
func (o *outLink) setupReceiver(a *amqp.Attach) error {
	pos, err := positionOf(a.Source.Filter)
	if err != nil {
		return refuse(amqp.CondInvalidField, "%v", err)
	}
	o.pos = pos
	l := o.l
	if v, ok := a.Properties.Get(propEpoch); ok {
		e, ok := toInt64(v)
		if !ok {
			return refuse(amqp.CondInvalidField, "the %s property is not an integer", propEpoch)
		}
		l.epoch = &e
	}
	if err := o.resolveLatest(); err != nil {
		return err
	}
	stolen, rerr := l.s.c.srv.owners.claim(ownerKey(l.addr), l)
	if rerr != nil {
		return &refusal{err: rerr}
	}
	for _, v := range stolen {
		go v.detachWith(&amqp.Error{Condition: amqp.CondStolen, Description: stealDescription(l, v)})
	}
	return nil
}

// resolveLatest turns a FromLatest position into the sequence number of
// the partition's last event, so events enqueued after the attach arrive.
func (o *outLink) resolveLatest() error {
	if o.pos.Kind != FromLatest {
		return nil
	}
	l := o.l
	info, err := l.s.c.host.PartitionInfo(l.ctx, l.addr.hub, l.addr.partition)
	if err != nil {
		return &refusal{err: hostError(err)}
	}
	o.pos = Position{Kind: FromSequence, Value: info.LastSequenceNumber}
	if info.Empty {
		o.pos.Value = info.BeginSequenceNumber - 1
	}
	return nil
}

// toInt64 converts an AMQP integer to int64.
func toInt64(v any) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, true
	case int32:
		return int64(v), true
	case int16:
		return int64(v), true
	case int8:
		return int64(v), true
	case uint32:
		return int64(v), true
	case uint16:
		return int64(v), true
	case uint8:
		return int64(v), true
	}
	return 0, false
}

// pumpEvents reads events for the credit the client gave and sends them.
func (o *outLink) pumpEvents() (bool, *amqp.Error) {
	n := o.available()
	if n == 0 {
		o.finishDrain() // a drain may ask with no credit left
		return false, nil
	}
	l, c := o.l, o.l.s.c
	if _, ok := c.grantFor(l.addr.hub, ClaimListen); !ok {
		return false, &amqp.Error{Condition: amqp.CondUnauthorizedAccess, Description: fmt.Sprintf("The token for '%s' expired or was not renewed; 'Listen' claim(s) are required.", l.addr.hub)}
	}
	events, err := c.host.Read(l.ctx, l.addr.hub, l.addr.group, l.addr.partition, o.pos, int(min(n, maxReadBatch)))
	if errors.Is(err, ErrDropConnection) {
		c.drop()
		return false, nil
	} else if err != nil {
		if l.ctx.Err() != nil {
			return false, nil
		}
		return false, hostError(err)
	}
	if len(events) == 0 {
		o.finishDrain()
		return false, nil
	}
	if e := o.sendEvents(events); e != nil {
		return false, e
	}
	return true, nil
}

// eventMessage builds the message a receiver gets for a stored event.
func eventMessage(e *StoredEvent) *amqp.Message {
	m := &amqp.Message{Properties: e.Properties, ApplicationProperties: e.ApplicationProperties}
	switch {
	case e.Body != nil:
		m.Data = [][]byte{e.Body}
	case e.Message != nil:
		m.Data, m.Sequence, m.Value, m.HasValue = e.Message.Data, e.Message.Sequence, e.Message.Value, e.Message.HasValue
	default:
		m.Data = [][]byte{{}}
	}
	ann := amqp.Map{
		{Key: annSequenceNumber, Value: e.SequenceNumber},
		{Key: annOffset, Value: strconv.FormatInt(e.Offset, 10)},
		{Key: annEnqueuedTime, Value: e.EnqueuedTime.UTC()},
	}
	if e.PartitionKey != "" {
		ann = append(ann, amqp.MapEntry{Key: annPartitionKey, Value: e.PartitionKey})
	}
	m.MessageAnnotations = ann
	return m
}
