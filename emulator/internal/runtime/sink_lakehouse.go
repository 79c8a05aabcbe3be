package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
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
	dest   store.Destination
	table  *delta.Table
	rej    *rejecter
	logger *slog.Logger
	// appendFn appends to the table; nil means table.Append (tests
	// replace it to make the writer panic).
	appendFn func(context.Context, []rows.Row, ...delta.Txn) (int64, error)
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
			if err := w.parkAll(ctx, seq, out, err); err != nil {
				return err
			}
			batch, out = nil, nil
			continue
		default:
			return fmt.Errorf("append to table %s: %w", w.dest.Target, err)
		}
		// Park the row, then try the rest: nothing is written until the
		// rejected rows are safely on disk.
		if err := w.rej.reject(ctx, []rejectedRow{{Seq: seq, Out: out[row], Reason: err, Metric: metricOf(err)}}); err != nil {
			return err
		}
		batch = append(batch[:row:row], batch[row+1:]...)
		out = append(out[:row:row], out[row+1:]...)
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

// parkAll hands every row of a batch to the rejecter with one reason.
func (w *lakehouseWriter) parkAll(ctx context.Context, seq int64, out []outRow, reason error) error {
	rs := make([]rejectedRow, len(out))
	for i, o := range out {
		rs[i] = rejectedRow{Seq: seq, Out: o, Reason: reason, Metric: insights.RuntimeErrors}
	}
	return w.rej.reject(ctx, rs)
}

func init() {
	writers["Lakehouse"] = func(rt *Runtime, d store.Destination) (rowWriter, error) {
		t, err := delta.Open(rt.tableDir(d.WorkspaceID, d.ItemID, d.Target), delta.WithStreamingUpdate(d.ID))
		if err != nil {
			return nil, err
		}
		return &lakehouseWriter{dest: d, table: t, rej: rt.rejecterOf(d, rt.rejectedFile(d)), logger: rt.cfg.Logger}, nil
	}
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

// metricOf is the data-insights counter a row's write error counts in: a
// value the table's column cannot take is a data conversion error, any
// other a runtime error.
func metricOf(err error) insights.Metric {
	var conflict *delta.SchemaConflictError
	if errors.As(err, &conflict) {
		return insights.DataConversionErrors
	}
	return insights.RuntimeErrors
}
