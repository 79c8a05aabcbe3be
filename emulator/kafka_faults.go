package emulator

import (
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/faults"
	"github.com/fabrictest/fabrictest/emulator/internal/gateway"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// kafkaFault is the Kafka endpoint's fault check: kafka rules on Produce
// (produce) and Fetch (consume), then broker rules on every request (an
// unreachable broker drops the connection before anything is forwarded).
func (s *Server) kafkaFault(g gateway.Grant, api string) *gateway.Fault {
	op := ""
	switch api {
	case "Produce":
		op = wire.FaultProduce
	case "Fetch":
		op = wire.FaultConsume
	}
	if op != "" {
		if hit := s.faults.Check(faults.Request{Door: wire.FaultDoorKafka, Eventstream: g.Owner, Node: g.Node, Operation: op}); hit != nil {
			return kafkaEffect(hit)
		}
	}
	if hit := s.faults.Check(faults.Request{Door: wire.FaultDoorBroker, Eventstream: g.Owner, Node: g.Node, Operation: op}); hit != nil {
		return &gateway.Fault{Drop: true}
	}
	return nil
}

// kafkaEffect is the gateway's fault for a hit on the Kafka door.
func kafkaEffect(hit *faults.Hit) *gateway.Fault {
	e := hit.Effect
	switch e.Kind {
	case wire.FaultThrottle:
		return &gateway.Fault{ThrottleMillis: int32(e.ThrottleMs)}
	case wire.FaultDrop:
		return &gateway.Fault{Drop: true}
	case wire.FaultLatency:
		return &gateway.Fault{Delay: time.Duration(e.LatencyMs) * time.Millisecond}
	}
	code, _ := faults.KafkaCode(e.KafkaError)
	return &gateway.Fault{ErrorCode: code, ThrottleMillis: int32(e.ThrottleMs)}
}
