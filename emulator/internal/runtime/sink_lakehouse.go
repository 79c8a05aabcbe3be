package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/delta"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// lakehouseWriter appends each batch to a Delta table as one commit whose
// txn action (appId the destination id, version the batch's seq) makes a
// batch written again after a crash land once.
//
// The table follows Fabric's schema enforcement unless the destination is
// bound with the "evolve" extension (package delta's documentation has
// the rules): fields the table has no column for are not written, and are
// counted in the destination's DroppedFields, with one runtime-log warning
// per field; a row that cannot be projected onto the table's schema is a
// data conversion error. A new table's columns come in the first record's
// member order (read from its JSON text), or, for rows made by operators,
// in the order the operators define (pipeline.Columns; name order when
// they define none).
//
// A row the table cannot hold (a value its column cannot take, a row with
// no column in common with the table, two names for one column, a row
// beyond package rows' limits) is not dropped and does not stop the
// destination: it is handed to the rejecter, which parks it, with the
// reason, in Files/_rejected/<table>/<destination>.jsonl of the Lakehouse
// and counts it. A batch whose rows are all parked before the table has a
// column commits nothing, and later rows create the table. Should the
// Delta writer panic all the same, the panic is recovered and logged with
// the records' coordinates, and the batch's rows are parked with it as
// their reason.
type lakehouseWriter struct {
	dest   store.Destination
	table  *delta.Table
	rej    *rejecter
	logger *slog.Logger
	node   *insights.Node   // the destination's data insights
	now    func() time.Time // the runtime's clock, for runtime logs
	// appendFn appends to the table; nil means table.AppendReport (tests
	// replace it to make the writer panic).
	appendFn func(context.Context, []rows.Row, ...delta.AppendOption) (delta.Report, error)
	// byOperators says the rows are made by the Eventstream's operators,
	// whose output columns come in the order of opColumns (nil: name
	// order); otherwise each row is its record, whose JSON text orders its
	// members. Set before the first write.
	byOperators bool
	opColumns   []string

	mu     sync.Mutex
	warned map[string]bool // dropped field paths already in the runtime logs
}

func (w *lakehouseWriter) write(ctx context.Context, seq int64, out []outRow) error {
	for {
		if len(out) == 0 && w.table.Version() < 0 {
			// Every row was parked and there is no table to record the
			// batch in: a table needs a column. The journal moves past
			// the batch all the same, and later rows create the table.
			return nil
		}
		rep, err := w.appendSafely(ctx, out, seq)
		if err == nil || errors.Is(err, delta.ErrTxnCommitted) {
			w.countDropped(rep.Dropped)
			return nil
		}
		bad := badRows(err)
		if len(bad) == 0 {
			var crash *writerPanic
			if len(out) == 0 || !(errors.As(err, &crash) || errors.Is(err, delta.ErrNoColumns)) {
				return fmt.Errorf("append to table %s: %w", w.dest.Target, err)
			}
			// No row to blame: park them all, so the destination goes on.
			if err := w.parkAll(ctx, seq, out, err); err != nil {
				return err
			}
			out = nil
			continue
		}
		// Park the rows, then try the rest: nothing is written until the
		// rejected rows are safely on disk.
		rs := make([]rejectedRow, len(bad))
		for i, b := range bad {
			rs[i] = rejectedRow{Seq: seq, Out: out[b.row], Reason: b.err, Metric: metricOf(b.err)}
		}
		if err := w.rej.reject(ctx, rs); err != nil {
			return err
		}
		out = without(out, bad)
	}
}

// badRow is a row of a batch the table cannot take, and why.
type badRow struct {
	row int
	err error
}

// badRows lists the rows an append error blames, in row order: every row
// of a *delta.RowsError (schema enforcement), or the one row of another
// row error (schema evolution stops at the first); none for an error no
// row is to blame for.
func badRows(err error) []badRow {
	var many *delta.RowsError
	if errors.As(err, &many) {
		out := make([]badRow, 0, len(many.Errs))
		for _, e := range many.Errs {
			if row, ok := delta.RowOf(e); ok {
				out = append(out, badRow{row: row, err: e})
			}
		}
		return out
	}
	if row, ok := delta.RowOf(err); ok {
		return []badRow{{row: row, err: err}}
	}
	return nil
}

// without returns out without the rows bad names.
func without(out []outRow, bad []badRow) []outRow {
	skip := make(map[int]bool, len(bad))
	for _, b := range bad {
		skip[b.row] = true
	}
	kept := make([]outRow, 0, len(out))
	for i := range out {
		if !skip[i] {
			kept = append(kept, out[i])
		}
	}
	return kept
}

// countDropped adds the fields schema enforcement left out to the
// destination's DroppedFields, and logs one warning per field the first
// time it is dropped (not per row).
func (w *lakehouseWriter) countDropped(dropped []delta.DroppedField) {
	if len(dropped) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.warned == nil {
		w.warned = map[string]bool{}
	}
	var total int64
	for _, f := range dropped {
		total += f.Count
		if w.warned[f.Path] {
			continue
		}
		w.warned[f.Path] = true
		msg := fmt.Sprintf("field %q is not a column of table %s, so it is not written (schema enforcement); example value: %s",
			f.Path, w.dest.Target, f.Example)
		now := w.now
		if now == nil {
			now = time.Now
		}
		w.node.Log(now(), insights.LevelWarning, msg, "field", f.Path, "value", f.Example)
		w.logger.Warn("lakehouse destination: field dropped by schema enforcement",
			"destination", w.dest.ID, "table", w.dest.Target, "field", f.Path, "value", f.Example)
	}
	w.node.Add(insights.DroppedFields, total)
}

// writerPanic is a panic of the Delta writer, recovered: a last line of
// defence for a row the checks let through.
type writerPanic struct{ value any }

func (p *writerPanic) Error() string {
	return fmt.Sprintf("the Delta writer failed on this batch: %v", p.value)
}

// appendSafely appends the batch under the destination's txn, turning a
// panic into a *writerPanic error. A row that is its record goes as the
// record's value (delta.WithValues), which the Delta writer converts
// without a Row when it can.
func (w *lakehouseWriter) appendSafely(ctx context.Context, out []outRow, seq int64) (r delta.Report, err error) {
	batch, values := make([]rows.Row, len(out)), make([][]byte, len(out))
	for i := range out {
		if out[i].fromValue && out[i].Value != nil {
			values[i] = out[i].Value // decoded by the Delta writer when it must
			continue
		}
		batch[i] = out[i].row() // a row made by operators, or a tombstone's
	}
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
		appendFn = w.table.AppendReport
	}
	order := func(i int) *delta.FieldOrder { return w.fieldOrder(out[i]) }
	return appendFn(ctx, batch, delta.WithTxn(delta.Txn{AppID: w.dest.ID, Version: seq}), delta.WithFieldOrder(order), delta.WithValues(values))
}

// columnOrderer is a writer that orders a new table's columns as the
// rows' producer did: newProcessor tells it the rows are made by
// operators, and their output column order (pipeline.Columns).
type columnOrderer interface {
	setOperatorColumns(cols []string)
}

// setOperatorColumns says the rows are made by operators whose output
// columns come in the order of cols (nil: the order is not known).
func (w *lakehouseWriter) setOperatorColumns(cols []string) {
	w.byOperators, w.opColumns = true, cols
}

// fieldOrder is the member order of a row, which a new table's columns
// follow (Fabric makes them from the first record as written): the
// record's own JSON text for a row that is its record, the operators'
// output columns for a row they made. The writer asks for it only for the
// row that makes a table's schema.
func (w *lakehouseWriter) fieldOrder(o outRow) *delta.FieldOrder {
	if w.byOperators {
		if w.opColumns == nil {
			return nil
		}
		return &delta.FieldOrder{Names: w.opColumns}
	}
	return delta.JSONFieldOrder(o.Value)
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
	writers["Lakehouse"] = func(rt *Runtime, d store.Destination, spec eventstream.Spec) (rowWriter, error) {
		mode, err := schemaModeOf(d, spec)
		if err != nil {
			return nil, err
		}
		t, err := delta.Open(rt.tableDir(d.WorkspaceID, d.ItemID, d.Target), delta.WithStreamingUpdate(d.ID), delta.WithSchemaMode(mode))
		if err != nil {
			return nil, err
		}
		return &lakehouseWriter{dest: d, table: t, rej: rt.rejecterWith(d, spec, rt.rejectedFile(d)), logger: rt.cfg.Logger,
			node: rt.Insights(d.ID), now: rt.cfg.Now}, nil
	}
}

// schemaModeOf is destination d's schema mode (spec is its decoded
// spec): Fabric's enforcement unless its binding asks for the "evolve"
// extension.
func schemaModeOf(d store.Destination, spec eventstream.Spec) (delta.SchemaMode, error) {
	switch spec.SchemaMode {
	case "", eventstream.SchemaEnforce:
		return delta.SchemaEnforce, nil
	case eventstream.SchemaEvolve:
		return delta.SchemaEvolve, nil
	default:
		return 0, fmt.Errorf("destination %s: schema mode %q is neither %q nor %q",
			d.ID, spec.SchemaMode, eventstream.SchemaEnforce, eventstream.SchemaEvolve)
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
	var conversion *delta.ConversionError
	if errors.As(err, &conflict) || errors.As(err, &conversion) {
		return insights.DataConversionErrors
	}
	return insights.RuntimeErrors
}
