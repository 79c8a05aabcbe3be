package runtime

import (
	"bytes"
	"context"
	"fmt"
	"runtime/debug"

	"github.com/fabrictest/fabrictest/emulator/internal/drain"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
	gojson "github.com/goccy/go-json"
	"github.com/twmb/franz-go/pkg/kgo"
)

// pendingBatch is a journal's pending batch: the rows of the journal's seq,
// or, once the writer panicked on them (Split), rows written one at a time
// under the seqs ending at the journal's.
type pendingBatch struct {
	Split bool
	Rows  []outRow
}

// encode writes the split form, {"split": true, "rows": [...]}.
func (b *pendingBatch) encode() ([]byte, error) {
	rs, err := marshalJournalRows(b.Rows)
	if err != nil {
		return nil, err
	}
	return gojson.Marshal(struct {
		Split bool              `json:"split"`
		Rows  gojson.RawMessage `json:"rows"`
	}{b.Split, rs})
}

// decode reads every form: the binary form and a plain array are a whole
// batch.
func (b *pendingBatch) decode(raw []byte) error {
	if len(raw) > 0 && raw[0] == binaryJournal {
		rs, err := decodeBinaryRows(raw)
		b.Split, b.Rows = false, rs
		return err
	}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		rs, err := decodeJournalRows(t)
		b.Split, b.Rows = false, rs
		return err
	}
	var split struct {
		Split bool              `json:"split"`
		Rows  gojson.RawMessage `json:"rows"`
	}
	if err := gojson.Unmarshal(raw, &split); err != nil {
		return err
	}
	b.Split, b.Rows = split.Split, nil
	if len(split.Rows) == 0 || string(split.Rows) == "null" {
		return nil
	}
	rs, err := decodeJournalRows(split.Rows)
	b.Rows = rs
	return err
}

// writeBatch writes out (journalled as pending under the journal's seq).
// When the writer panics on it, the journal is rewritten to split it: its
// rows are written one at a time under seqs of their own (the journal's,
// then the following ones), so a replay after a crash splits the same way
// and skips what was written; a row that panics alone is parked and counted.
func (p *processor) writeBatch(ctx context.Context, out []outRow) error {
	seq := p.journal.Seq
	pe, err := p.tryWrite(ctx, seq, out)
	if pe == nil {
		return err
	}
	if len(out) == 1 {
		return p.reject(ctx, out[0], seq, pe)
	}
	j := p.journal
	j.Seq = seq + int64(len(out)) - 1
	if j.Pending, err = (&pendingBatch{Split: true, Rows: out}).encode(); err != nil {
		return err
	}
	if err := p.st.PutJournal(ctx, j); err != nil {
		return err
	}
	p.journal = j
	return p.writeSplit(ctx, seq, out)
}

// writeSplit writes out one row at a time under seqs from first on.
func (p *processor) writeSplit(ctx context.Context, first int64, out []outRow) error {
	for i, r := range out {
		seq := first + int64(i)
		pe, err := p.tryWrite(ctx, seq, []outRow{r})
		if pe != nil {
			err = p.reject(ctx, r, seq, pe)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// tryWrite writes out under seq; a panic of the writer is recovered,
// logged with the rows' coordinates, counted and returned as pe.
func (p *processor) tryWrite(ctx context.Context, seq int64, out []outRow) (pe *drain.PanicError, err error) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		p.panics.Add(1)
		pe = &drain.PanicError{Value: v, Stack: debug.Stack()}
		args := []any{"destination", p.destID, "seq", seq, "rows", len(out), "panic", fmt.Sprint(v), "stack", string(pe.Stack)}
		if len(out) == 1 && out[0].Offset >= 0 {
			args = append(args, "partition", out[0].Partition, "offset", out[0].Offset)
		}
		p.log.Error("destination writer panicked; recovered", args...)
	}()
	return nil, p.w.write(ctx, seq, out)
}

// reject hands a row the writer cannot take to the destination's rejecter.
func (p *processor) reject(ctx context.Context, r outRow, seq int64, cause error) error {
	return p.rej.reject(ctx, []rejectedRow{{Seq: seq, Out: r, Reason: cause, Metric: insights.RuntimeErrors}})
}

// Skip is the destination's policy for a record whose processing panicked
// (drain.Skipper): it is parked and counted like a rejected row.
func (p *processor) Skip(ctx context.Context, r *kgo.Record, reason error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reject(ctx, outRow{Key: r.Key, Value: r.Value, Headers: r.Headers, Partition: r.Partition, Offset: r.Offset}, p.journal.Seq, reason)
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

// recovered runs fn, turning a panic into a *drain.PanicError (with the
// stack), for the goroutines that run a source, an operator or a sink.
func recovered(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &drain.PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return fn()
}
