package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/faults"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/wire"
)

// faultable wraps destination d's writer so that destination fault rules
// fail or slow its writes. A failed write is retried by the drain, as any
// failed write is, from the journal: nothing is lost or written twice.
func (rt *Runtime) faultable(d store.Destination, w rowWriter) rowWriter {
	if rt.cfg.Faults == nil {
		return w
	}
	return &faultWriter{w: w, set: rt.cfg.Faults, req: faults.Request{Door: wire.FaultDoorDestination, Destination: d.ID, Eventstream: d.EventstreamID}}
}

// faultWriter is a writer that consults the fault rules before each write.
type faultWriter struct {
	w   rowWriter
	set *faults.Set
	req faults.Request
}

// InjectedError is the error of a write an injected fault failed.
type InjectedError struct{ Rule string }

func (e *InjectedError) Error() string {
	return fmt.Sprintf("injected fault: the destination's write failed (fault rule %s)", e.Rule)
}

func (f *faultWriter) write(ctx context.Context, seq int64, out []outRow) error {
	if hit := f.set.Check(f.req); hit != nil {
		if hit.Effect.Kind == wire.FaultWriteFailure {
			return &InjectedError{Rule: hit.Rule}
		}
		select {
		case <-time.After(hit.Latency()):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return f.w.write(ctx, seq, out)
}

// LogFault records an injected fault in the runtime logs of the node it
// reached: the destination, or the source (else the Eventstream's node
// named by the hit). A fault of no Eventstream is the caller's to log.
func (rt *Runtime) LogFault(h faults.Hit) bool {
	var node *insights.Node
	switch {
	case h.Req.Destination != "":
		node = rt.Insights(h.Req.Destination)
	case h.Req.Eventstream != "" && h.Req.Node != "":
		node = rt.SourceNode(h.Req.Eventstream, h.Req.Node)
	default:
		return false
	}
	attrs := []any{"rule", h.Rule, "door", h.Req.Door, "effect", h.Effect.Kind}
	if h.Req.Operation != "" {
		attrs = append(attrs, "operation", h.Req.Operation)
	}
	node.Log(rt.Clock().Now(), insights.LevelWarning, "fault injected: "+h.Effect.Kind+" on the "+h.Req.Door+" door", attrs...)
	return true
}
