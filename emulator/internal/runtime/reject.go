package runtime

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// rejectedRow is one row a destination could not write, and why.
type rejectedRow struct {
	Seq    int64
	Out    outRow
	Reason error
	// Metric is the data-insights counter it counts in
	// (DataConversionErrors, RuntimeErrors, …).
	Metric insights.Metric
}

// rejecter disposes of the rows a destination could not write, by the
// destination's error policy (eventstream.Spec.ErrorPolicy). Every writer
// hands its rejected rows here and nowhere else.
//
//   - drop (the default, Fabric's): each row is parked, with the reason,
//     in a JSON-lines file (for a Lakehouse destination
//     Files/_rejected/<table>/<destination>.jsonl of the Lakehouse),
//     counted on the destination and in its data insights, and logged as a
//     warning in the node's runtime logs; the batch goes on.
//   - dlq: each row goes to the destination's dead-letter Kafka topic
//     (deadletter.go) instead of the file, then is counted and logged the
//     same way, plus DeadLetteredEvents.
//   - retry and fail: nothing is disposed of; reject returns a *heldError,
//     so the batch is not done. Under retry the drain writes it again with
//     its backoff until it succeeds; under fail the drain stops
//     (drain.Config.StopOnError).
type rejecter struct {
	dest   store.Destination
	file   string // "" keeps no file
	stats  *rejections
	node   *insights.Node
	now    func() time.Time
	policy string // eventstream.PolicyDrop ("" means it), …
	dlq    *deadLetters
	// held remembers the rows retry last held back, so that a batch
	// retried every two seconds is counted and logged once.
	held map[string]bool
}

// rejecterOf returns destination d's rejecter; file is where its rows are
// parked ("" for none).
func (rt *Runtime) rejecterOf(d store.Destination, file string) *rejecter {
	spec, _ := eventstream.SpecOf(d) // launchDrain refuses a spec that does not decode
	return rt.rejecterWith(d, spec, file)
}

// rejecterWith returns destination d's rejecter under its decoded spec.
func (rt *Runtime) rejecterWith(d store.Destination, spec eventstream.Spec, file string) *rejecter {
	r := &rejecter{dest: d, file: file, stats: rt.rejectionsOf(d.ID), node: rt.Insights(d.ID), now: rt.cfg.Now, held: map[string]bool{}}
	r.policy = cmp.Or(spec.ErrorPolicy, eventstream.PolicyDrop)
	if r.policy == eventstream.PolicyDLQ {
		r.dlq = rt.deadLettersOf(d, spec)
	}
	return r
}

// rejectedFile is where destination d parks the rows it cannot write: a
// Lakehouse destination in Files/_rejected/<table>/<destination>.jsonl of
// its Lakehouse; other destinations keep none ("").
func (rt *Runtime) rejectedFile(d store.Destination) string {
	if d.Type != "Lakehouse" {
		return ""
	}
	return filepath.Join(rt.cfg.OneLakeDir, d.WorkspaceID, d.ItemID, "Files", "_rejected", d.Target, d.ID+".jsonl")
}

// reject disposes of rs by the error policy. An error means they were not
// disposed of: the batch is not done, and the drain tries it again (or,
// under fail, stops).
func (r *rejecter) reject(ctx context.Context, rs []rejectedRow) error {
	switch r.policy {
	case eventstream.PolicyRetry, eventstream.PolicyFail:
		return r.hold(rs)
	case eventstream.PolicyDLQ:
		if err := r.dlq.send(ctx, rs, r.now()); err != nil {
			return err
		}
	default:
		for _, x := range rs {
			if err := r.park(x); err != nil {
				return err
			}
		}
	}
	for _, x := range rs {
		r.stats.add(1, x.Reason.Error())
		r.node.Add(x.Metric, 1)
		msg := x.Reason.Error()
		if r.dlq != nil {
			r.node.Add(insights.DeadLetteredEvents, 1)
			msg += "; sent to dead-letter topic " + r.dlq.topic
		}
		r.node.Log(r.now(), insights.LevelWarning, msg, x.attrs()...)
	}
	return nil
}

// attrs are x's coordinates for a runtime log entry.
func (x rejectedRow) attrs() []any {
	attrs := []any{"seq", x.Seq}
	if x.Out.Offset >= 0 {
		attrs = append(attrs, "partition", x.Out.Partition, "offset", x.Out.Offset)
	}
	return attrs
}

// park appends x to the destination's rejected-rows file.
func (r *rejecter) park(x rejectedRow) error {
	if r == nil || r.file == "" {
		return nil
	}
	rec := map[string]any{"seq": x.Seq, "reason": x.Reason.Error(), "row": x.Out.row()}
	if x.Metric != "" {
		rec["metric"] = x.Metric
	}
	if x.Out.Offset >= 0 {
		rec["partition"], rec["offset"], rec["value"] = x.Out.Partition, x.Out.Offset, string(x.Out.Value)
	}
	if err := os.MkdirAll(filepath.Dir(r.file), 0o700); err != nil {
		return fmt.Errorf("park rejected row: %w", err)
	}
	f, err := os.OpenFile(r.file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("park rejected row: %w", err)
	}
	line, _ := json.Marshal(rec)
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("park rejected row: %w", err)
	}
	return nil
}

// rejections counts the rows a destination parked.
type rejections struct {
	mu    sync.Mutex
	count int64
	last  string
}

func (r *rejections) add(n int, last string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count += int64(n)
	r.last = last
}

func (r *rejections) get() (int64, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count, r.last
}

// rejectionsOf returns the rejection counter of a destination.
func (rt *Runtime) rejectionsOf(destID string) *rejections {
	rt.drainsMu.Lock()
	defer rt.drainsMu.Unlock()
	r, ok := rt.rejected[destID]
	if !ok {
		r = &rejections{}
		rt.rejected[destID] = r
	}
	return r
}
