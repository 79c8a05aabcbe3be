package emulator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
	"github.com/fabrictest/fabrictest/emulator/internal/amqp/eventhubs"
	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/wire"
	"github.com/twmb/franz-go/pkg/kgo"
)

// principalKeyPrefix starts the KeyID of a grant an Entra token gave.
const principalKeyPrefix = "principal:"

// condEntityDisabled is Event Hubs' condition for an entity that takes no
// events now (the SDKs do not retry it): a paused source.
const condEntityDisabled amqp.Symbol = "com.microsoft:entity-disabled"

// Send implements eventhubs.Host through the ingest seam: Open, then
// CheckEvent for each event, then Lane.Write, answered once the broker
// has the events.
func (h ehHost) Send(ctx context.Context, g eventhubs.Grant, hub string, partition int, events []eventhubs.Event) error {
	caller, target, err := h.callerOf(ctx, g, hub)
	if err != nil {
		return err
	}
	lane, err := h.s.ingest.Open(ctx, caller, target)
	if err != nil {
		return sendError(err)
	}
	if err := h.s.injectEventHubs(ctx, lane.Item.ID, lane.Source, wire.FaultProduce); err != nil {
		return err
	}
	records := make([]*kgo.Record, len(events))
	backing := make([]kgo.Record, len(events))
	var props []byte
	for i, e := range events {
		records[i] = &backing[i]
		if props, err = recordInto(records[i], e, props); err != nil {
			return &amqp.Error{Condition: eventhubs.CondArgument, Description: fmt.Sprintf("event %d: %v", i, err)}
		}
		if err := control.CheckEvent(i, records[i], false); err != nil {
			return sendError(err)
		}
	}
	if partition >= 0 {
		ctx = broker.PinPartition(ctx, int32(partition))
	}
	if _, err := lane.Write(ctx, records, control.Accepted); err != nil {
		return sendError(err)
	}
	return nil
}

// callerOf is the ingest seam's caller and target for a grant: a key's
// grant names its node, a principal's the stream whose topic is hub.
func (h ehHost) callerOf(ctx context.Context, g eventhubs.Grant, hub string) (control.Caller, control.Target, error) {
	if oid, ok := strings.CutPrefix(g.KeyID, principalKeyPrefix); ok {
		it, st, err := h.hubOf(ctx, hub)
		if err != nil {
			return control.Caller{}, control.Target{}, err
		}
		return control.Caller{ID: oid}, control.Target{Workspace: it.WorkspaceID, Eventstream: it.ID, Node: st.ID}, nil
	}
	node, _, _ := strings.Cut(g.KeyID, "/")
	itemID, _, _ := strings.Cut(hub, ".")
	key := &control.Grant{KeyID: g.KeyID, Eventstream: itemID, Node: node, Topic: g.Entity, Listen: !g.Send}
	return control.Caller{Key: key}, control.Target{Node: node}, nil
}

// sendError maps a refusal of the ingest seam to the door's conditions.
func sendError(err error) error {
	var ce *control.Error
	if !errors.As(err, &ce) {
		return err
	}
	switch ce.Kind {
	case control.NotFound:
		return fmt.Errorf("%s: %w", ce.Error(), eventhubs.ErrNotFound)
	case control.Forbidden, control.Unauthenticated:
		return fmt.Errorf("%s: %w", ce.Error(), eventhubs.ErrUnauthorized)
	case control.Paused:
		return &amqp.Error{Condition: condEntityDisabled, Description: ce.Error()}
	case control.ReadOnly:
		return &amqp.Error{Condition: amqp.CondNotAllowed, Description: ce.Error()}
	case control.TooLarge:
		return fmt.Errorf("%s: %w", ce.Error(), eventhubs.ErrTooLarge)
	case control.Unsupported:
		return &amqp.Error{Condition: eventhubs.CondArgument, Description: ce.Error()}
	case control.Unavailable:
		return fmt.Errorf("%s: %w", ce.Error(), eventhubs.ErrServerBusy)
	}
	return &amqp.Error{Condition: amqp.CondInternalError, Description: ce.Error()}
}
