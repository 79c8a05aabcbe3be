package emulator

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
	"github.com/fabrictest/fabrictest/emulator/internal/amqp/eventhubs"
	"github.com/fabrictest/fabrictest/emulator/internal/faults"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// injectEventHubs applies the fault a rule injects into an Event Hubs
// send or receive of Eventstream esID through node: nil, after a latency
// effect's wait; ErrDropConnection for a drop (the door closes the socket);
// or the AMQP error the link answers (a throttle is Event Hubs'
// com.microsoft:server-busy, ServerBusyException in the SDKs).
func (s *Server) injectEventHubs(ctx context.Context, esID, node, op string) error {
	hit := s.faults.Check(faults.Request{Door: wire.FaultDoorEventHubs, Eventstream: esID, Node: node, Operation: op})
	if hit == nil {
		return nil
	}
	e := hit.Effect
	switch e.Kind {
	case wire.FaultLatency:
		select {
		case <-time.After(hit.Latency()):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	case wire.FaultDrop:
		return eventhubs.ErrDropConnection
	}
	msg := e.Message
	if msg == "" {
		msg = fmt.Sprintf("injected fault (rule %s): the request was terminated because the entity is being throttled; please wait and retry", hit.Rule)
	}
	if e.AMQPCondition == faults.ServerBusy {
		return fmt.Errorf("%s: %w", msg, eventhubs.ErrServerBusy)
	}
	return &amqp.Error{Condition: amqp.Symbol(e.AMQPCondition), Description: msg}
}

// hubItem is the Eventstream id of an event hub name ({itemId}.{streamId}).
func hubItem(hub string) string {
	id, _, _ := strings.Cut(hub, ".")
	return id
}
