package api

import (
	"context"
	"errors"
	"fmt"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/rows"
	"github.com/fabrictest/fabrictest/emulator/store"
)

// lakehouseWriter appends each batch to a Delta table as one commit whose
// txn action (appId the destination id, version the batch's seq) makes a
// batch written again after a crash land once.
type lakehouseWriter struct {
	dest  store.Destination
	table *delta.Table
}

func (w *lakehouseWriter) write(ctx context.Context, seq int64, out []outRow) error {
	batch := make([]rows.Row, len(out))
	for i, r := range out {
		batch[i] = r.Row
	}
	if _, err := w.table.Append(ctx, batch, delta.Txn{AppID: w.dest.ID, Version: seq}); err != nil && !errors.Is(err, delta.ErrTxnCommitted) {
		return fmt.Errorf("append to table %s: %w", w.dest.Target, err)
	}
	return nil
}

func init() {
	writers["Lakehouse"] = func(a *API, d store.Destination) (rowWriter, error) {
		t, err := delta.Open(a.tableDir(d.WorkspaceID, d.ItemID, d.Target), delta.WithStreamingUpdate(d.ID))
		if err != nil {
			return nil, err
		}
		return &lakehouseWriter{dest: d, table: t}, nil
	}
}
