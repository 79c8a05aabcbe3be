// Package runtime runs what the stored Eventstreams describe: a drain per
// destination (the journalled processor in front of its sink: a Lakehouse
// table, an Eventhouse table, a Reflex or a DerivedStream's topic), a
// runner per SampleData or Kafka-protocol source, the rejected-row
// counters and the Kusto client the Eventhouse sinks share.
//
// Sync reconciles the running drains and sources of one Eventstream with
// its stored model; Stop quiesces drains before their bindings are
// deleted; Close stops everything. The HTTP layer reads status through
// DrainStatus, Rejections, StartFailed and SourceState.
package runtime

import (
	"github.com/fabrictest/fabrictest/emulator/internal/faults"
	"log/slog"
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/clock"
	"github.com/fabrictest/fabrictest/emulator/internal/drain"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/jobs"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Config is what the runtime runs against.
type Config struct {
	Store  *store.Store
	Broker *broker.Broker
	Logger *slog.Logger
	// Now is the wall clock under Clock (default time.Now); the runtime
	// then reads Clock.Now for everything that waits on time.
	Now func() time.Time
	// Clock is the emulator's controllable clock (default: one over Now,
	// not advanced).
	Clock *clock.Clock
	// OneLakeDir is the root of Lakehouse files: <OneLakeDir>/<ws>/<item>/Tables|Files.
	OneLakeDir string
	// KQLURL is the Kusto engine behind Eventhouses ("" when none is attached).
	KQLURL string
	// Jobs runs the jobs Reflex triggers start.
	Jobs *jobs.Runner
	// ProduceTimeout bounds a source's produce.
	ProduceTimeout time.Duration
	// SampleInterval and SampleBatch pace SampleData sources (defaults
	// DefaultSampleInterval, DefaultSampleBatch).
	SampleInterval time.Duration
	SampleBatch    int
	// Faults are the fault rules a test injects (nil: none): destination
	// rules fail or slow a destination's writes.
	Faults *faults.Set
}

// DefaultProduceTimeout bounds a source's produce by default.
const DefaultProduceTimeout = 30 * time.Second

// Runtime runs the drains and sources of every Eventstream.
type Runtime struct {
	cfg Config

	drainsMu sync.Mutex
	drains   map[string]*drainEntry // by destination id
	pool     *drain.Pool            // the Kafka connections drains share; made with the first drain
	rejected map[string]*rejections // by destination id
	reset    map[string]bool        // destinations the next Sync restarts
	closed   bool                   // Close ran: nothing starts again

	kustoState

	srcs sourceRegistry // runners of SampleData and Kafka-protocol sources

	insights *insights.Registry // data insights of every node
	saver    *insightsSaver     // writes them to the store
}

// Insights returns node id's data insights (a destination's, a source's
// or a stream's id).
func (rt *Runtime) Insights(id string) *insights.Node { return rt.insights.Node(id) }

// New returns a runtime for cfg; nothing runs until Sync.
func New(cfg Config) *Runtime {
	if cfg.Clock == nil {
		cfg.Clock = clock.New(cfg.Now)
	}
	cfg.Now = cfg.Clock.Now
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.ProduceTimeout <= 0 {
		cfg.ProduceTimeout = DefaultProduceTimeout
	}
	if cfg.SampleInterval <= 0 {
		cfg.SampleInterval = DefaultSampleInterval
	}
	if cfg.SampleBatch <= 0 {
		cfg.SampleBatch = DefaultSampleBatch
	}
	rt := &Runtime{cfg: cfg, drains: map[string]*drainEntry{}, rejected: map[string]*rejections{}, reset: map[string]bool{}, insights: insights.NewRegistry()}
	rt.saver = rt.startInsights()
	return rt
}
