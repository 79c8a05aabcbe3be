package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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

// runSample produces a batch of g's events into the DefaultStream topic
// every interval until ctx ends. A failed produce marks the source Failed
// (its events are dropped; the next batch tries again).
func (rt *Runtime) runSample(ctx context.Context, run *sourceRunner, g *sample.Generator, log *slog.Logger) {
	every, n := rt.cfg.SampleInterval, rt.cfg.SampleBatch
	if every <= 0 {
		every = DefaultSampleInterval
	}
	if n <= 0 {
		n = DefaultSampleBatch
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		err := recovered(func() error { return rt.produceSample(ctx, run, g, n) })
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
func (rt *Runtime) produceSample(ctx context.Context, run *sourceRunner, g *sample.Generator, n int) error {
	events := g.Batch(n)
	recs := make([]*kgo.Record, len(events))
	now := rt.cfg.Now()
	for i, ev := range events {
		v, _ := json.Marshal(ev)
		recs[i] = &kgo.Record{Value: v, Timestamp: now}
	}
	pctx, cancel := context.WithTimeout(ctx, rt.cfg.ProduceTimeout)
	defer cancel()
	_, err := rt.cfg.Broker.Produce(pctx, run.spec.Topic, recs)
	rt.countSource(err, run, recs) // data insights
	return err
}
