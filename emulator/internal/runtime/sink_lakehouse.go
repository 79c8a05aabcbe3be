package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// lakehouseWriter appends each batch to a Delta table as one commit whose
// txn action (appId the destination id, version the batch's seq) makes a
// batch written again after a crash land once.
//
// A row the table cannot hold (a value whose type conflicts with its
// column, two names for one column, a row beyond package rows' limits) is
// not dropped and does not stop the destination: it is parked, with the
// reason, in Files/_rejected/<table>/<destination>.jsonl of the Lakehouse,
// and counted on the destination. A batch whose rows are all parked
// before the table has a column commits nothing, and later rows create
// the table. Should the Delta writer panic all the same, the panic is
// recovered and logged with the records' coordinates, and the batch's
// rows are parked with it as their reason.
type lakehouseWriter struct {
	dest     store.Destination
	table    *delta.Table
	rejected string // the .jsonl file rejected rows are appended to
	stats    *rejections
	logger   *slog.Logger
	// appendFn appends to the table; nil means table.Append (tests
	// replace it to make the writer panic).
	appendFn func(context.Context, []rows.Row, ...delta.Txn) (int64, error)
}

// rejections counts the rows a destination parked.
type rejections struct {
	mu    sync.Mutex
	count int64
	last  string
}

func (r *rejections) add(n int, last string) {
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

func (w *lakehouseWriter) write(ctx context.Context, seq int64, out []outRow) error {
	batch := make([]rows.Row, len(out))
	for i, r := range out {
		batch[i] = r.Row
	}
	for {
		if len(batch) == 0 && w.table.Version() < 0 {
			// Every row was parked and there is no table to record the
			// batch in: a table needs a column. The journal moves past
			// the batch all the same, and later rows create the table.
			return nil
		}
		_, err := w.appendSafely(ctx, batch, out, seq)
		var conflict *delta.SchemaConflictError
		var dup *delta.DuplicateFieldError
		var limit *delta.RowLimitError
		var crash *writerPanic
		row := -1
		switch {
		case err == nil, errors.Is(err, delta.ErrTxnCommitted):
			return nil
		case errors.As(err, &conflict):
			row = conflict.Row
		case errors.As(err, &dup):
			row = dup.Row
		case errors.As(err, &limit):
			row = limit.Row
		case len(batch) > 0 && (errors.As(err, &crash) || errors.Is(err, delta.ErrNoColumns)):
			// No row to blame: park them all, so the destination goes on.
			if err := w.parkAll(seq, batch, out, err); err != nil {
				return err
			}
			batch, out = nil, nil
			continue
		default:
			return fmt.Errorf("append to table %s: %w", w.dest.Target, err)
		}
		// Park the row, then try the rest: nothing is written until the
		// rejected rows are safely on disk.
		if err := w.park(w.rejection(seq, batch[row], out[row], err)); err != nil {
			return err
		}
		batch = append(batch[:row:row], batch[row+1:]...)
		out = append(out[:row:row], out[row+1:]...)
		w.stats.add(1, err.Error())
	}
}

// writerPanic is a panic of the Delta writer, recovered: a last line of
// defence for a row the checks let through.
type writerPanic struct{ value any }

func (p *writerPanic) Error() string {
	return fmt.Sprintf("the Delta writer failed on this batch: %v", p.value)
}

// appendSafely appends the batch under the destination's txn, turning a
// panic into a *writerPanic error.
func (w *lakehouseWriter) appendSafely(ctx context.Context, batch []rows.Row, out []outRow, seq int64) (v int64, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &writerPanic{value: p}
			w.logger.Error("lakehouse destination: writer panic recovered; the batch's rows are parked",
				"destination", w.dest.ID, "table", w.dest.Target, "seq", seq, "rows", len(batch), "records", coordinates(out),
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	appendFn := w.appendFn
	if appendFn == nil {
		appendFn = w.table.Append
	}
	return appendFn(ctx, batch, delta.Txn{AppID: w.dest.ID, Version: seq})
}

// rejection is the parked record of one row: the batch, the reason, the
// row, and the Kafka record's coordinates when the row is the record itself.
func (w *lakehouseWriter) rejection(seq int64, r rows.Row, o outRow, reason error) map[string]any {
	rec := map[string]any{"seq": seq, "reason": reason.Error(), "row": r}
	if o.Offset >= 0 {
		rec["partition"], rec["offset"], rec["value"] = o.Partition, o.Offset, string(o.Value)
	}
	return rec
}

// parkAll parks every row of a batch with one reason.
func (w *lakehouseWriter) parkAll(seq int64, batch []rows.Row, out []outRow, reason error) error {
	for i := range batch {
		if err := w.park(w.rejection(seq, batch[i], out[i], reason)); err != nil {
			return err
		}
	}
	w.stats.add(len(batch), reason.Error())
	return nil
}

func (w *lakehouseWriter) park(rec map[string]any) error {
	if err := os.MkdirAll(filepath.Dir(w.rejected), 0o755); err != nil {
		return fmt.Errorf("park rejected row: %w", err)
	}
	f, err := os.OpenFile(w.rejected, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
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

func init() {
	writers["Lakehouse"] = func(rt *Runtime, d store.Destination) (rowWriter, error) {
		t, err := delta.Open(rt.tableDir(d.WorkspaceID, d.ItemID, d.Target), delta.WithStreamingUpdate(d.ID))
		if err != nil {
			return nil, err
		}
		return &lakehouseWriter{
			dest: d, table: t, stats: rt.rejectionsOf(d.ID), logger: rt.cfg.Logger,
			rejected: filepath.Join(rt.cfg.OneLakeDir, d.WorkspaceID, d.ItemID, "Files", "_rejected", d.Target, d.ID+".jsonl"),
		}, nil
	}
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

// coordinates names the Kafka records of a batch ("partition/offset"), the
// first 20 of them; rows made by windows have none.
func coordinates(out []outRow) []string {
	var cs []string
	for _, o := range out {
		if o.Offset >= 0 && len(cs) < 20 {
			cs = append(cs, fmt.Sprintf("%d/%d", o.Partition, o.Offset))
		}
	}
	return cs
}
