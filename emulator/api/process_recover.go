package api

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/fabrictest/fabrictest/emulator/drain"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
	"github.com/twmb/franz-go/pkg/kgo"
)

// parker is implemented by writers that keep the rows they cannot take
// beside the data (a Lakehouse's Files/_rejected).
type parker interface {
	park(rec map[string]any) error
}

// writeBatch writes out under seq, the last of the len(out) seqs the
// journal reserved for it. When the writer panics, the rows are written
// one at a time under the reserved seqs (seq-len(out)+1 … seq), so a
// replay after a crash splits the same way and skips what was written;
// a row that panics alone is parked and counted.
func (p *processor) writeBatch(ctx context.Context, seq int64, out []outRow) error {
	err := recovered(func() error { return p.w.write(ctx, seq, out) })
	var pe *drain.PanicError
	if !errors.As(err, &pe) {
		return err
	}
	p.panics.Add(1)
	args := []any{"destination", p.destID, "seq", seq, "rows", len(out), "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack)}
	if len(out) == 1 && out[0].Offset >= 0 {
		args = append(args, "partition", out[0].Partition, "offset", out[0].Offset)
	}
	p.log.Error("destination writer panicked; recovered", args...)
	if len(out) == 1 {
		return p.reject(out[0], seq, pe)
	}
	first := seq - int64(len(out)) + 1
	for i, r := range out {
		if err := p.writeBatch(ctx, first+int64(i), []outRow{r}); err != nil {
			return err
		}
	}
	return nil
}

// reject parks a row the writer cannot take (when the writer keeps such
// rows) and counts it on the destination.
func (p *processor) reject(r outRow, seq int64, cause error) error {
	rec := map[string]any{"seq": seq, "reason": cause.Error()}
	if r.Offset >= 0 {
		rec["partition"], rec["offset"], rec["value"] = r.Partition, r.Offset, string(r.Value)
	}
	if pk, ok := p.w.(parker); ok {
		if err := pk.park(rec); err != nil {
			return err
		}
	}
	if p.stats != nil {
		p.stats.add(1, cause.Error())
	}
	return nil
}

// Skip is the destination's policy for a record whose processing panicked
// (drain.Skipper): it is parked and counted like a rejected row.
func (p *processor) Skip(_ context.Context, r *kgo.Record, reason error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reject(outRow{Value: r.Value, Partition: r.Partition, Offset: r.Offset}, p.journal.Seq, reason)
}

// Panics returns the writer panics recovered (drain.Panicker).
func (p *processor) Panics() int64 { return p.panics.Load() }

// restoreOnPanic, deferred, puts the operators back in the state of the
// last journal when a batch panics half way through them, and panics on
// for the drain to recover.
func (p *processor) restoreOnPanic() {
	v := recover()
	if v == nil {
		return
	}
	if p.pipe != nil {
		if pipe, err := pipeline.New(p.ops); err == nil {
			if p.journal.State != nil {
				_ = pipe.Restore(p.journal.State) // a state it cannot take: the windows start afresh
			}
			p.pipe = pipe
		}
	}
	panic(v)
}

// recovered runs fn, turning a panic into a *drain.PanicError.
func recovered(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &drain.PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return fn()
}
