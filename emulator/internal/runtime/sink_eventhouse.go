package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/fabrictest/fabrictest/emulator/eventhouse"
	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// eventhouseWriter ingests each batch with .create-merge and .ingest inline
// through azure-kusto-go, tagged "<destination>/<seq>" with ingestIfNotExists
// so a batch written again after a failure or a crash lands once.
//
// What Kusto does with a value that does not fit its column (writes null)
// and a field dropped by a column-name collision are counted in the
// destination's data insights once the batch landed (DataConversionErrors,
// DroppedFields), with one runtime-log warning per column the first time.
//
// A batch whose .ingest inline the engine refuses for good (a permanent
// error or a 4xx other than 408/429: the data, as the table was created
// and read just before) is handed to the rejecter, every row with the
// engine's error, so the destination's error policy applies; any other
// failure (no engine, engine unreachable or busy, a table command
// refused) is a sink failure, retried (or, under fail, stopping the
// destination).
type eventhouseWriter struct {
	rt   *Runtime
	dest store.Destination
	db   string
	// keep is DirectIngestion's: an existing table keeps its columns, as
	// the Eventhouse's own ingestion keeps them (eventhouse.KeepSchema).
	keep bool

	mu     sync.Mutex
	warned map[string]bool // "<metric>/<column>" already logged

	rej *rejecter
}

func (w *eventhouseWriter) write(ctx context.Context, seq int64, out []outRow) error {
	if len(out) == 0 {
		return nil
	}
	client, err := w.rt.Kusto()
	if err != nil {
		return err
	}
	batch := make([]rows.Row, len(out))
	for i, r := range out {
		batch[i] = r.row()
	}
	var conflicts []eventhouse.Conflict
	ctx = eventhouse.WithConflicts(ctx, func(c eventhouse.Conflict) { conflicts = append(conflicts, c) })
	if w.keep {
		ctx = eventhouse.KeepSchema(ctx)
	}
	err = client.Ingest(ctx, w.db, w.dest.Target, batch, fmt.Sprintf("%s/%d", w.dest.ID, seq))
	if dataRefused(err) {
		rs := make([]rejectedRow, len(out))
		for i, o := range out {
			rs[i] = rejectedRow{Seq: seq, Out: o, Reason: err, Metric: insights.DataConversionErrors}
		}
		return w.rej.reject(ctx, rs)
	}
	if err != nil {
		return fmt.Errorf("ingest into %s.%s at %s: %w", w.db, w.dest.Target, w.rt.cfg.KQLURL, err)
	}
	w.count(conflicts)
	return nil
}

// count adds the conflicts of a batch that landed to the destination's
// data insights, logging a warning the first time a column has one.
func (w *eventhouseWriter) count(conflicts []eventhouse.Conflict) {
	node := w.rt.Insights(w.dest.ID)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range conflicts {
		metric, msg := insights.DataConversionErrors, fmt.Sprintf("value %s does not fit column %q (%s) of table %s; Kusto writes null", describeValue(c.Value), c.Column, c.ColumnType, w.dest.Target)
		if c.ColumnType == "" {
			metric, msg = insights.DroppedFields, fmt.Sprintf("field %q was not written into table %s: %s", c.Field, w.dest.Target, c.Reason)
		}
		node.Add(metric, 1)
		if key := string(metric) + "/" + c.Column; !w.warned[key] {
			if w.warned == nil {
				w.warned = map[string]bool{}
			}
			w.warned[key] = true
			node.Log(w.rt.cfg.Now(), insights.LevelWarning, msg, "column", c.Column)
		}
	}
}

// describeValue renders a conflicting value for a runtime log, cut to 100
// bytes.
func describeValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(fmt.Sprint(v))
	}
	if len(b) > 100 {
		return string(b[:100]) + "…"
	}
	return string(b)
}

// direct reports whether spec is an Eventhouse destination in
// DirectIngestion mode: the Eventhouse pulls the stream as it is, so the
// Eventstream's operators do not apply (a definition's DirectIngestion
// destination that reads a DerivedStream carries that stream's own chain
// as OwnOperators).
func direct(spec eventstream.Spec) bool {
	return spec.IngestionMode == definition.DirectIngestion
}

// dataRefused reports whether err is the engine refusing a batch's data
// for good: its .ingest inline answered with an error not worth retrying.
func dataRefused(err error) bool {
	var ee *eventhouse.EngineError
	return errors.As(err, &ee) && ee.Step == "ingest inline" && !ee.Retryable()
}

// Kusto returns the shared client of the --kql-url engine (the one the
// Eventhouse destinations write with, closed with the runtime), or an
// error saying that none is attached.
func (rt *Runtime) Kusto() (*eventhouse.Client, error) {
	if rt.cfg.KQLURL == "" {
		return nil, fmt.Errorf("no Kusto engine is attached: start the emulator with --kql-url <engine URL> (or FABRIC_KQL_URL); the events stay in Kafka until then")
	}
	rt.kustoOnce.Do(func() {
		rt.kustoClient, rt.kustoErr = eventhouse.New(rt.cfg.KQLURL, eventhouse.WithTrustedHost())
	})
	return rt.kustoClient, rt.kustoErr
}

func init() {
	writers["Eventhouse"] = func(rt *Runtime, d store.Destination, spec eventstream.Spec) (rowWriter, error) {
		return &eventhouseWriter{rt: rt, dest: d, db: spec.Database, keep: direct(spec), rej: rt.rejecterWith(d, spec, rt.rejectedFile(d))}, nil
	}
}

// kustoState is the runtime's lazily made Kusto client.
type kustoState struct {
	kustoOnce   sync.Once
	kustoClient *eventhouse.Client
	kustoErr    error
}
