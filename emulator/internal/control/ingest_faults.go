package control

import (
	"errors"
	"fmt"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/faults"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// ErrInjectedUnreachable is the broker's failure a broker fault rule
// injects into a write.
var ErrInjectedUnreachable = errors.New("injected fault: the Kafka broker is unreachable")

// brokerUnreachable answers the failure of a write into l when a broker
// fault rule is active, nil otherwise.
func (in *Ingest) brokerUnreachable(l Lane) ([]broker.Position, error) {
	hit := in.cfg.Faults.Check(faults.Request{Door: wire.FaultDoorBroker, Eventstream: l.Item.ID, Node: l.Source, Operation: wire.FaultProduce})
	if hit == nil {
		return nil, nil
	}
	return nil, fmt.Errorf("%w (fault rule %s)", ErrInjectedUnreachable, hit.Rule)
}
