package emulator

import (
	"fmt"

	"github.com/fabrictest/fabrictest/emulator/internal/faults"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// FaultRule is one fault to inject (docs/faults.md): a target, an effect,
// and the count or duration that ends it.
type FaultRule = wire.FaultRule

// WithFaults starts the emulator with fault rules active, as if each were
// POSTed to /_emulator/faults before the first call. A rule's duration
// counts from New.
func WithFaults(rules ...FaultRule) Option {
	return func(c *config) error {
		for i, r := range rules {
			if err := faults.Validate(&r); err != nil {
				return fmt.Errorf("fault rule %d: %w", i, err)
			}
		}
		c.faults = append(c.faults, rules...)
		return nil
	}
}

// AddFault makes a fault rule active and answers it as stored (with its
// id, when it had none).
func (s *Server) AddFault(r FaultRule) (wire.FaultRuleState, error) { return s.faults.Add(r) }

// Faults answers the active fault rules.
func (s *Server) Faults() []wire.FaultRuleState { return s.faults.List() }

// ClearFaults ends every fault rule.
func (s *Server) ClearFaults() { s.faults.Clear() }

// newFaults makes the server's fault rules from its options; every hit is
// logged, in the runtime logs of the node it reached when it reached one.
func (s *Server) newFaults() error {
	s.faults = faults.NewSet(nil)
	for _, r := range s.cfg.faults {
		if _, err := s.faults.Add(r); err != nil {
			return fmt.Errorf("fault rule %s: %w", r.ID, err)
		}
	}
	s.faults.SetOnInject(func(h faults.Hit) {
		s.cfg.logger.Warn("fault injected", "rule", h.Rule, "door", h.Req.Door, "effect", h.Effect.Kind,
			"eventstream", h.Req.Eventstream, "node", h.Req.Node, "destination", h.Req.Destination, "route", h.Req.Route)
		if s.rt != nil {
			s.rt.LogFault(h)
		}
	})
	return nil
}
