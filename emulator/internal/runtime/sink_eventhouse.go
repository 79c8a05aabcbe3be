package runtime

import (
	"context"
	"fmt"
	"sync"

	"github.com/fabrictest/fabrictest/emulator/eventhouse"
	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/fabrictest/fabrictest/emulator/rows"
)

// eventhouseWriter ingests each batch with .create-merge and .ingest inline
// through azure-kusto-go, tagged "<destination>/<seq>" with ingestIfNotExists
// so a batch written again after a failure or a crash lands once.
type eventhouseWriter struct {
	rt   *Runtime
	dest store.Destination
	db   string
}

func (w *eventhouseWriter) write(ctx context.Context, seq int64, out []outRow) error {
	if len(out) == 0 {
		return nil
	}
	client, err := w.rt.kusto()
	if err != nil {
		return err
	}
	batch := make([]rows.Row, len(out))
	for i, r := range out {
		batch[i] = r.Row
	}
	if err := client.Ingest(ctx, w.db, w.dest.Target, batch, fmt.Sprintf("%s/%d", w.dest.ID, seq)); err != nil {
		return fmt.Errorf("ingest into %s.%s at %s: %w", w.db, w.dest.Target, w.rt.cfg.KQLURL, err)
	}
	return nil
}

// direct reports whether spec is an Eventhouse destination in
// DirectIngestion mode: the Eventhouse pulls the stream as it is, so the
// Eventstream's operators do not apply (a definition's DirectIngestion
// destination that reads a DerivedStream carries that stream's own chain
// as OwnOperators).
func direct(spec eventstream.Spec) bool {
	return spec.IngestionMode == definition.DirectIngestion
}

// kusto returns the shared client of the --kql-url engine.
func (rt *Runtime) kusto() (*eventhouse.Client, error) {
	if rt.cfg.KQLURL == "" {
		return nil, fmt.Errorf("no Kusto engine is attached: start the emulator with --kql-url <engine URL> (or FABRIC_KQL_URL); the events stay in Kafka until then")
	}
	rt.kustoOnce.Do(func() {
		rt.kustoClient, rt.kustoErr = eventhouse.New(rt.cfg.KQLURL, eventhouse.WithTrustedHost())
	})
	return rt.kustoClient, rt.kustoErr
}

func init() {
	writers["Eventhouse"] = func(rt *Runtime, d store.Destination) (rowWriter, error) {
		spec, err := eventstream.SpecOf(d)
		if err != nil {
			return nil, err
		}
		return &eventhouseWriter{rt: rt, dest: d, db: spec.Database}, nil
	}
}

// kustoState is the runtime's lazily made Kusto client.
type kustoState struct {
	kustoOnce   sync.Once
	kustoClient *eventhouse.Client
	kustoErr    error
}
