package runtime

import (
	"context"

	"github.com/fabrictest/fabrictest/emulator/internal/drain"
)

// DrainStatus is destination id's drain status; ok is false when no drain
// runs for it (paused, or no broker).
func (rt *Runtime) DrainStatus(id string) (st drain.Status, ok bool) {
	rt.drainsMu.Lock()
	e := rt.drains[id]
	rt.drainsMu.Unlock()
	if e == nil {
		return drain.Status{}, false
	}
	return e.dr.Status(), true
}

// StartFailed reports whether destination id is Failed and stopped: it
// could not start, or its error policy fail stopped it. Resuming it
// starts it again (which delivers the batch it stopped on again).
func (rt *Runtime) StartFailed(id string) bool {
	st, ok := rt.DrainStatus(id)
	return ok && (st.StartErr != nil || st.Stopped)
}

// Rejections is how many rows destination id rejected since the server
// started, and the last rejection's reason.
func (rt *Runtime) Rejections(id string) (int64, string) {
	rt.drainsMu.Lock()
	r := rt.rejected[id]
	rt.drainsMu.Unlock()
	if r == nil {
		return 0, ""
	}
	return r.get()
}

// SourceState is the state of source id's runner: found is false when none
// runs (paused, not a run type, or no broker); ready once it first
// delivered or joined; err while it fails.
func (rt *Runtime) SourceState(id string) (found, ready bool, err error) {
	rt.srcs.mu.Lock()
	run := rt.srcs.runners[id]
	rt.srcs.mu.Unlock()
	if run == nil {
		return false, false, nil
	}
	ready, err = run.state()
	return true, ready, err
}

// KafkaHealth is why destination id cannot be served by Kafka for now, nil
// when it can: the drain's last read failed (a broker lost), or a
// partition of its topic has no leader or fewer in-sync replicas than its
// min.insync.replicas (the cluster refuses writes). A destination with no
// running drain answers nil.
func (rt *Runtime) KafkaHealth(ctx context.Context, id string) error {
	rt.drainsMu.Lock()
	e := rt.drains[id]
	rt.drainsMu.Unlock()
	if e == nil || e.dr == nil {
		return nil
	}
	if st := e.dr.Status(); st.StartErr != nil {
		return nil
	} else if st.ReadErr != nil {
		return st.ReadErr
	}
	return rt.cfg.Broker.TopicHealth(ctx, e.dr.Topic())
}
