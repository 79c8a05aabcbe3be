package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/drain"
	"github.com/fabrictest/fabrictest/emulator/internal/sample"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Default pace of SampleData sources: a batch of DefaultSampleBatch events
// every DefaultSampleInterval.
const (
	DefaultSampleInterval = time.Second
	DefaultSampleBatch    = 10
)

// checkSampleSource checks a SampleData node: properties.type names one
// of the sample data sets.
func checkSampleSource(n *node) error {
	kind, ok := sample.Canonical(str(n.Props, "type"))
	if !ok {
		return badNode(n, "properties.type", "%q is not a sample data set; want one of %s", str(n.Props, "type"), strings.Join(sample.Kinds, ", "))
	}
	n.Props["type"] = kind
	n.Raw["properties"] = n.Props
	return nil
}

// runSample produces a batch of g's events into the DefaultStream topic
// every interval until ctx ends. A failed produce marks the source Failed
// (its events are dropped; the next batch tries again).
func (a *API) runSample(ctx context.Context, run *sourceRunner, g *sample.Generator, log *slog.Logger) {
	every, n := a.cfg.SampleInterval, a.cfg.SampleBatch
	if every <= 0 {
		every = DefaultSampleInterval
	}
	if n <= 0 {
		n = DefaultSampleBatch
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		err := recovered(func() error { return a.produceSample(ctx, run, g, n) })
		if ctx.Err() != nil {
			return
		}
		if pe := (*drain.PanicError)(nil); errors.As(err, &pe) {
			log.Error("sample data source panicked; recovered", "topic", run.spec.Topic, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
		}
		if err != nil {
			log.Warn("sample data source failed", "err", err)
			run.fail(err)
		} else {
			run.ok()
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// produceSample produces one batch of n of g's events.
func (a *API) produceSample(ctx context.Context, run *sourceRunner, g *sample.Generator, n int) error {
	events := g.Batch(n)
	recs := make([]*kgo.Record, len(events))
	now := a.cfg.Now()
	for i, ev := range events {
		v, _ := json.Marshal(ev)
		recs[i] = &kgo.Record{Value: v, Timestamp: now}
	}
	pctx, cancel := context.WithTimeout(ctx, a.cfg.ProduceTimeout)
	defer cancel()
	_, err := a.cfg.Broker.Produce(pctx, run.spec.Topic, recs)
	return err
}
