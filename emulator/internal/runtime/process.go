package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/drain"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
	"github.com/fabrictest/fabrictest/emulator/rows"
	"github.com/twmb/franz-go/pkg/kgo"
)

// outRow is one row for a destination. Key and Value are the record's own
// bytes when the row is the record itself (no operators); rows made by
// operators carry Value as their compact JSON.
type outRow struct {
	Row       rows.Row `json:"row"`
	Key       []byte   `json:"key,omitempty"`
	Value     []byte   `json:"value,omitempty"`
	Partition int32    `json:"partition"`
	Offset    int64    `json:"offset"` // -1 for rows made by a window

	// Headers are the record's own (kept for a dead-letter topic).
	Headers []kgo.RecordHeader `json:"headers,omitempty"`

	// fromValue: the row is rows.FromValue(Value), left nil in Row until a
	// writer asks for it (row), and left out of the journal (journalRow).
	// The Lakehouse writer hands the value to the Delta writer instead,
	// which converts a plain record without making a Row at all.
	fromValue bool
}

// row is the row: Row, or the record's value decoded when Row was left
// nil (fromValue).
func (o *outRow) row() rows.Row {
	if o.Row == nil && o.fromValue {
		return rows.FromValue(o.Value)
	}
	return o.Row
}

// rowWriter writes a destination's rows. A write is identified by (dest,
// seq): writing the same seq twice must land once (a Delta txn action, a
// Kusto ingest tag, a job dedupe key).
type rowWriter interface {
	write(ctx context.Context, seq int64, out []outRow) error
}

// processor turns a destination's records into rows (through the
// Eventstream's operators) and writes them with the journal protocol of
// store.Journal: save the batch, write it under its seq, clear it.
type processor struct {
	st     *store.Store
	destID string
	pipe   *pipeline.Pipeline // nil without operators
	ops    []pipeline.Operator
	w      rowWriter
	rej    *rejecter // where rows the writer cannot take go
	log    *slog.Logger
	panics atomic.Int64 // writer panics recovered

	// format is how record values become rows (Json: FromValue, lazily).
	format rows.Format
	// failures are the records of the last Write that did not decode.
	failures []decodeFailure

	mu      sync.Mutex
	journal store.Journal
	batch   *batcher // nil: every batch is committed at once
	// journalBuf is the buffer of the last pending batch written and
	// cleared, which the next batch is encoded into.
	journalBuf []byte
}

// newProcessor restores the destination's journal and operator state; a
// state taken with other operators is dropped (the windows start afresh).
func newProcessor(ctx context.Context, st *store.Store, destID string, ops []pipeline.Operator, w rowWriter, rej *rejecter, log *slog.Logger) (*processor, error) {
	p := &processor{st: st, destID: destID, ops: ops, w: w, rej: rej, log: log, journal: store.Journal{DestinationID: destID, Offsets: map[int32]int64{}}}
	if len(ops) > 0 {
		pipe, err := pipeline.New(ops)
		if err != nil {
			return nil, err
		}
		p.pipe = pipe
		if co, ok := w.(columnOrderer); ok {
			co.setOperatorColumns(pipe.Columns())
		}
	}
	j, err := st.GetJournal(ctx, destID)
	if errors.Is(err, store.ErrNotFound) {
		return p, nil
	} else if err != nil {
		return nil, err
	}
	p.journal = j
	if p.pipe != nil && j.State != nil {
		if err := p.pipe.Restore(j.State); errors.Is(err, pipeline.ErrSnapshotMismatch) {
			p.journal.State = nil
		} else if err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Resume returns the last offset processed per partition; a batch still
// pending from before a restart is written first.
func (p *processor) Resume(ctx context.Context, _ []int32) (map[int32]int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// Partitions are not declared to the pipeline up front: with keyless
	// produces most partitions stay idle, and an idle partition would hold
	// the event-time watermark back for ever. A partition that first shows
	// up behind the others may see its rows counted late instead.
	if err := p.flushPending(ctx); err != nil {
		return nil, err
	}
	out := map[int32]int64{}
	for part, next := range p.journal.Offsets {
		out[part] = next - 1
	}
	return out, nil
}

func (p *processor) flushPending(ctx context.Context) error {
	if p.journal.Pending == nil {
		return nil
	}
	var pend pendingBatch
	if err := pend.decode(p.journal.Pending); err != nil {
		return fmt.Errorf("read pending batch: %w", err)
	}
	var err error
	if pend.Split {
		err = p.writeSplit(ctx, p.journal.Seq-int64(len(pend.Rows))+1, pend.Rows)
	} else {
		err = p.writeBatch(ctx, pend.Rows)
	}
	if err != nil {
		return err
	}
	p.journal.Pending = nil
	return p.st.ClearPending(ctx, p.destID, p.journal.Seq)
}

// Write processes a batch of records.
func (p *processor) Write(ctx context.Context, b drain.Batch) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	defer p.restoreOnPanic()
	if err := p.flushPending(ctx); err != nil {
		return err
	}
	var out []outRow
	offsets := copyOffsets(p.journal.Offsets)
	p.failures = nil
	switch {
	case p.pipe == nil && !p.jsonFormat():
		out = p.decodedRows(b, offsets)
	case p.pipe == nil:
		out = make([]outRow, 0, len(b.Records))
		for _, r := range b.Records {
			if next, ok := offsets[r.Partition]; ok && r.Offset < next {
				continue // already delivered before a restart
			}
			out = append(out, outRow{Key: r.Key, Value: r.Value, Headers: r.Headers, Partition: r.Partition, Offset: r.Offset, fromValue: true})
			offsets[r.Partition] = r.Offset + 1
		}
	case !p.jsonFormat():
		out = derived(p.pipe.Process(p.decodedEvents(b)))
		offsets = p.pipe.Offsets()
	default:
		events := make([]pipeline.Event, len(b.Records))
		for i, r := range b.Records {
			events[i] = pipeline.Event{Row: rows.FromValue(r.Value), Timestamp: r.Timestamp, Partition: r.Partition, Offset: r.Offset}
		}
		out = derived(p.pipe.Process(events))
		offsets = p.pipe.Offsets()
	}
	return p.commit(ctx, out, offsets)
}

// Tick emits the windows the clock has closed and commits a batching
// destination's buffer once it is due.
func (p *processor) Tick(ctx context.Context, now time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	defer p.restoreOnPanic()
	if p.pipe == nil && p.batch == nil {
		return nil
	}
	if err := p.flushPending(ctx); err != nil {
		return err
	}
	if err := p.closeWindows(ctx, now); err != nil {
		return err
	}
	return p.commitDue(ctx, now)
}

// closeWindows emits the windows closed at now.
func (p *processor) closeWindows(ctx context.Context, now time.Time) error {
	if p.pipe == nil {
		return nil
	}
	if at, ok := p.pipe.Deadline(); !ok || now.Before(at) {
		return nil
	}
	out := derived(p.pipe.Advance(now))
	if len(out) == 0 {
		return p.saveState(ctx)
	}
	return p.commit(ctx, out, p.pipe.Offsets())
}

// commit journals the batch under the next seq, writes it, and clears it;
// a batching destination buffers it instead.
func (p *processor) commit(ctx context.Context, out []outRow, offsets map[int32]int64) error {
	if p.batch != nil {
		return p.buffer(ctx, out, offsets)
	}
	j, err := p.nextJournal(offsets)
	if err != nil {
		return err
	}
	if len(out) > 0 {
		j.Seq++
		pending, err := appendBinaryRows(p.journalBuf[:0], out)
		if err != nil {
			return err
		}
		j.Pending, p.journalBuf = pending, nil // the journal's until cleared
	}
	if err := p.st.PutJournal(ctx, j); err != nil {
		return err
	}
	p.journal = j
	if len(out) == 0 {
		return nil
	}
	// The batch in hand is the one journalled: write it without decoding.
	if err := p.writeBatch(ctx, out); err != nil {
		return err
	}
	written := p.journal.Pending
	p.journal.Pending = nil
	if err := p.st.ClearPending(ctx, p.destID, p.journal.Seq); err != nil {
		return err
	}
	p.journalBuf = written // nothing refers to it now: the next batch's
	return nil
}

// nextJournal is the journal after a batch that moves the offsets to
// offsets: the same seq, and the operators' state as they are now.
func (p *processor) nextJournal(offsets map[int32]int64) (store.Journal, error) {
	j := store.Journal{DestinationID: p.destID, Seq: p.journal.Seq, Offsets: offsets}
	if p.pipe != nil {
		state, err := p.pipe.Snapshot()
		if err != nil {
			return j, err
		}
		j.State = state
	}
	return j, nil
}

func (p *processor) saveState(ctx context.Context) error {
	state, err := p.pipe.Snapshot()
	if err != nil {
		return err
	}
	p.journal.State = state
	return p.st.PutJournal(ctx, p.journal)
}

func derived(rs []rows.Row) []outRow {
	out := make([]outRow, len(rs))
	for i, r := range rs {
		v, _ := json.Marshal(r)
		out[i] = outRow{Row: r, Value: v, Partition: -1, Offset: -1}
	}
	return out
}

func copyOffsets(m map[int32]int64) map[int32]int64 {
	out := make(map[int32]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
