package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
	"github.com/fabrictest/fabrictest/emulator/store"
)

// lakehouseWriter appends each batch to a Delta table as one commit whose
// txn action (appId the destination id, version the batch's seq) makes a
// batch written again after a crash land once.
//
// A row the table cannot hold (a value whose type conflicts with its
// column) is not dropped and does not stop the destination: it is parked,
// with the reason, in Files/_rejected/<table>/<destination>.jsonl of the
// Lakehouse, and counted on the destination.
type lakehouseWriter struct {
	dest     store.Destination
	table    *delta.Table
	rejected string // the .jsonl file rejected rows are appended to
	stats    *rejections
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
		_, err := w.table.Append(ctx, batch, delta.Txn{AppID: w.dest.ID, Version: seq})
		var conflict *delta.SchemaConflictError
		var dup *delta.DuplicateFieldError
		row := -1
		switch {
		case err == nil, errors.Is(err, delta.ErrTxnCommitted):
			return nil
		case errors.As(err, &conflict):
			row = conflict.Row
		case errors.As(err, &dup):
			row = dup.Row
		default:
			return fmt.Errorf("append to table %s: %w", w.dest.Target, err)
		}
		// Park the row, then try the rest: nothing is written until the
		// rejected rows are safely on disk.
		rec := map[string]any{"seq": seq, "reason": err.Error(), "row": batch[row]}
		if o := out[row]; o.Offset >= 0 {
			rec["partition"], rec["offset"], rec["value"] = o.Partition, o.Offset, string(o.Value)
		}
		if err := w.park(rec); err != nil {
			return err
		}
		batch = append(batch[:row:row], batch[row+1:]...)
		out = append(out[:row:row], out[row+1:]...)
		w.stats.add(1, err.Error())
	}
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
	writers["Lakehouse"] = func(a *API, d store.Destination) (rowWriter, error) {
		t, err := delta.Open(a.tableDir(d.WorkspaceID, d.ItemID, d.Target), delta.WithStreamingUpdate(d.ID))
		if err != nil {
			return nil, err
		}
		return &lakehouseWriter{
			dest: d, table: t, stats: a.rejectionsOf(d.ID),
			rejected: filepath.Join(a.cfg.OneLakeDir, d.WorkspaceID, d.ItemID, "Files", "_rejected", d.Target, d.ID+".jsonl"),
		}, nil
	}
}

// rejectionsOf returns the rejection counter of a destination.
func (a *API) rejectionsOf(destID string) *rejections {
	a.drainsMu.Lock()
	defer a.drainsMu.Unlock()
	r, ok := a.rejected[destID]
	if !ok {
		r = &rejections{}
		a.rejected[destID] = r
	}
	return r
}
