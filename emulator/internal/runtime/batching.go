package runtime

import (
	"context"
	"errors"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	gojson "github.com/goccy/go-json"
)

// batcher is a batching destination's buffer in brief (fabric-docs
// add-destination-lakehouse: a file is committed when minimumRows rows
// are buffered or maximumDurationInSeconds has passed since the first
// buffered row, whichever comes first). The rows themselves are in the
// store (store.BufferRows), written in the transaction that saves the
// offsets they came from.
type batcher struct {
	minRows int64
	maxWait time.Duration
	now     func() time.Time // the emulator's clock

	rows  int64     // buffered, not yet committed
	first time.Time // when the oldest of them was buffered
	// leftover: the destination no longer batches, and this batcher only
	// commits what an earlier run of it left buffered, then goes.
	leftover bool
}

// enableBatching makes p buffer its rows by b, reading what a previous
// run left buffered. A first row buffered "after" now (a clock that was
// not saved) counts from now.
func (p *processor) enableBatching(ctx context.Context, b eventstream.Batching, now func() time.Time) error {
	buf, err := p.st.BufferOf(ctx, p.destID)
	if err != nil {
		return err
	}
	bt := &batcher{minRows: b.MinimumRows, maxWait: time.Duration(b.MaximumDurationInSeconds) * time.Second, now: now, rows: buf.Rows, first: buf.First}
	if t := now(); bt.first.After(t) {
		bt.first = t
	}
	p.batch = bt
	return nil
}

// commitLeftover makes p, a destination that no longer batches, commit
// the rows a batching run of it left buffered (at its first Write or
// Tick), then commit every batch at once as before.
func (p *processor) commitLeftover(ctx context.Context, now func() time.Time) error {
	buf, err := p.st.BufferOf(ctx, p.destID)
	if err != nil || buf.Rows == 0 {
		return err
	}
	p.batch = &batcher{minRows: 1, now: now, rows: buf.Rows, first: buf.First, leftover: true}
	return nil
}

// due reports whether the buffer is to be committed at now.
func (b *batcher) due(now time.Time) bool {
	return b.rows > 0 && (b.rows >= b.minRows || now.Sub(b.first) >= b.maxWait)
}

// buffer saves out into the destination's buffer together with offsets
// and the operator state (one transaction), then commits the buffer if it
// is due. The offsets are then safe to commit to Kafka: the rows are
// durable here.
func (p *processor) buffer(ctx context.Context, out []outRow, offsets map[int32]int64) error {
	j, err := p.nextJournal(offsets)
	if err != nil {
		return err
	}
	enc := make([][]byte, len(out))
	for i, r := range out {
		b, err := gojson.Marshal(toJournal(r))
		if err != nil {
			return err
		}
		enc[i] = b
	}
	now := p.batch.now()
	if err := p.st.BufferRows(ctx, j, enc, now); err != nil {
		return err
	}
	p.journal = j
	if len(out) > 0 {
		if p.batch.rows == 0 {
			p.batch.first = now
		}
		p.batch.rows += int64(len(out))
	}
	return p.commitDue(ctx, now)
}

// commitDue commits the buffer when it is due at now.
func (p *processor) commitDue(ctx context.Context, now time.Time) error {
	if p.batch == nil || !p.batch.due(now) {
		return nil
	}
	_, err := p.commitBuffer(ctx)
	return err
}

// commitBuffer moves every buffered row into the journal's pending batch
// under the next seq (one transaction) and writes it as one batch: one
// Delta commit. A crash after the move writes the pending batch again
// under the same seq, which the writer recognises. It returns how many
// rows it committed.
func (p *processor) commitBuffer(ctx context.Context) (int64, error) {
	j := p.journal
	j.Seq++
	j, n, err := p.st.TakeBuffer(ctx, j)
	if err != nil && !errors.Is(err, store.ErrEmptyBuffer) {
		return 0, err
	}
	p.batch.rows, p.batch.first = 0, time.Time{}
	if p.batch.leftover {
		p.batch = nil
	}
	if err != nil { // nothing buffered
		return 0, nil
	}
	p.journal = j
	return n, p.flushPending(ctx)
}

// Flush commits whatever the destination has buffered now, and returns
// how many rows that was (0 for a destination that does not batch).
func (p *processor) Flush(ctx context.Context) (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	defer p.restoreOnPanic()
	if err := p.flushPending(ctx); err != nil {
		return 0, err
	}
	if p.batch == nil {
		return 0, nil
	}
	return p.commitBuffer(ctx)
}

// Buffered returns how many rows wait in the buffer and since when; ok
// is false for a destination that does not batch.
func (p *processor) Buffered() (rows int64, since time.Time, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.batch == nil {
		return 0, time.Time{}, false
	}
	return p.batch.rows, p.batch.first, true
}
