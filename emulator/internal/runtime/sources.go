package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/fabrictest/fabrictest/emulator/internal/cdc"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/sample"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Sources the emulator runs itself: SampleData sources generate events and
// Kafka-protocol sources (ApacheKafka, ConfluentCloud, AmazonMSKKafka, and
// AzureEventHub and AzureIoTHub through Event Hubs' Kafka surface) copy a
// topic of another cluster, both into the Eventstream's DefaultStream
// topic. Each such source of a deployed definition has one runner while
// neither it nor its Eventstream is paused; Sync (syncSources) reconciles the
// runners with the stored definition after every change (deploy, pause,
// resume, delete, connection change), so a runner never outlives its node.

// SourceFailed is the errorCode of a failed source in the topology.
const SourceFailed = "SourceFailed"

// sourceError is why a runner is failing; the topology renders it.
type sourceError struct{ err error }

func (e *sourceError) Error() string { return e.err.Error() }
func (e *sourceError) Unwrap() error { return e.err }
func (e *sourceError) ErrorCode() string {
	var coded *cdc.Error // a CDC failure a user can fix keeps its own code
	if errors.As(e.err, &coded) {
		return coded.ErrorCode
	}
	return SourceFailed
}

// sourceSpec is what a runner needs; two specs that marshal alike run alike.
type sourceSpec struct {
	EventstreamID string                 `json:"eventstreamId"`
	ID            string                 `json:"id"`
	Type          string                 `json:"type"`
	Topic         string                 `json:"topic"`
	Sample        string                 `json:"sample,omitempty"`
	Kafka         *KafkaSourceProps      `json:"kafka,omitempty"`
	CDC           *eventstream.CDCSource `json:"cdc,omitempty"`
	Conn          *KafkaConnection       `json:"conn,omitempty"`
	ConnErr       string                 `json:"connErr,omitempty"`
	paused        bool
}

func (s sourceSpec) fingerprint() string { b, _ := json.Marshal(s); return string(b) }

// sourceRunner is one running source.
type sourceRunner struct {
	spec   sourceSpec
	fp     string
	cancel context.CancelFunc
	done   chan struct{}

	mu    sync.Mutex
	ready bool
	err   error
}

func (r *sourceRunner) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.err = &sourceError{err}
}

func (r *sourceRunner) ok() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ready, r.err = true, nil
}

func (r *sourceRunner) state() (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ready, r.err
}

func (r *sourceRunner) stop() {
	r.cancel()
	<-r.done
}

// sourceRegistry holds the runners of a Runtime. The zero value is ready.
type sourceRegistry struct {
	syncMu  sync.Mutex // one reconciliation at a time
	mu      sync.Mutex // guards the maps
	runners map[string]*sourceRunner
	// gens keeps a SampleData source's generator across pause and resume
	// (by "eventstreamId/sourceId"), so a resumed source goes on with new events.
	gens map[string]*sample.Generator
	// closed stops every later reconciliation (server shutdown).
	closed bool
}

// wantedSources lists the run sources of es's definition.
func (rt *Runtime) wantedSources(ctx context.Context, es store.Item) ([]sourceSpec, error) {
	props, err := eventstream.Decode(es)
	if err != nil || len(props.Streams) == 0 {
		return nil, err
	}
	srcs, err := props.RunSources()
	if err != nil {
		return nil, err
	}
	streamPaused := props.StreamPaused()
	out := make([]sourceSpec, 0, len(srcs))
	for _, src := range srcs {
		s := sourceSpec{EventstreamID: es.ID, ID: src.ID, Type: src.Type, Topic: props.Streams[0].Topic,
			paused: streamPaused || props.IsPaused(src.ID), Sample: src.Sample}
		if src.Kafka != nil {
			rt.kafkaSource(ctx, es.WorkspaceID, src, &s)
		}
		if src.CDC != nil {
			rt.cdcSource(ctx, es.WorkspaceID, src, &s)
		}
		out = append(out, s)
	}
	return out, nil
}

// syncSources makes the runners of Eventstream esID match its stored
// definition: a runner per unpaused run source, restarted when its node,
// stream or connection changed, stopped when gone.
func (rt *Runtime) syncSources(esID string) {
	if !rt.cfg.Broker.Enabled() {
		return
	}
	ctx := context.Background()
	r := &rt.srcs
	r.syncMu.Lock()
	defer r.syncMu.Unlock()
	if r.closed {
		return
	}
	want := map[string]sourceSpec{}
	if es, err := rt.cfg.Store.GetItem(ctx, esID); err == nil && es.Type == eventstream.ItemType {
		specs, err := rt.wantedSources(ctx, es)
		if err != nil {
			rt.cfg.Logger.Error("read the sources of an Eventstream", "eventstream", esID, "err", err)
		}
		for _, s := range specs {
			want[s.ID] = s
		}
	}
	r.mu.Lock()
	if r.runners == nil {
		r.runners, r.gens = map[string]*sourceRunner{}, map[string]*sample.Generator{}
	}
	var stale []*sourceRunner
	for id, run := range r.runners {
		if run.spec.EventstreamID != esID {
			continue
		}
		if w, ok := want[id]; !ok || w.paused || w.fingerprint() != run.fp {
			stale = append(stale, run)
			delete(r.runners, id)
		}
	}
	r.mu.Unlock()
	for _, run := range stale {
		run.stop()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for key := range r.gens { // generators of sources that left the definition go
		es, id, _ := strings.Cut(key, "/")
		if _, ok := want[id]; !ok && es == esID {
			delete(r.gens, key)
		}
	}
	for id, w := range want {
		if w.paused || r.runners[id] != nil {
			continue
		}
		r.runners[id] = rt.startSource(w)
	}
}

// startSource starts the runner of s; r.mu is held.
func (rt *Runtime) startSource(s sourceSpec) *sourceRunner {
	ctx, cancel := context.WithCancel(context.Background())
	run := &sourceRunner{spec: s, fp: s.fingerprint(), cancel: cancel, done: make(chan struct{})}
	log := rt.cfg.Logger.With("eventstream", s.EventstreamID, "source", s.ID, "type", s.Type)
	switch {
	case s.Sample != "":
		key := s.EventstreamID + "/" + s.ID
		g := rt.srcs.gens[key]
		if g == nil || g.Kind() != s.Sample {
			g, _ = sample.New(s.Sample, seedOf(s.ID), sample.WithClock(rt.cfg.Now))
			rt.srcs.gens[key] = g
		}
		go func() { defer close(run.done); rt.runSample(ctx, run, g, log) }()
	case s.CDC != nil:
		go func() { defer close(run.done); rt.runCDC(ctx, run, log) }()
	default:
		go func() { defer close(run.done); rt.runKafka(ctx, run, log) }()
	}
	return run
}

// seedOf derives a generator seed from a source id (FNV-1a).
func seedOf(id string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h = (h ^ uint64(id[i])) * 1099511628211
	}
	return h
}

// SyncConnection restarts the source runners that use data connection
// connID (it changed or went away).
func (rt *Runtime) SyncConnection(connID string) {
	rt.srcs.mu.Lock()
	var ids []string
	for _, run := range rt.srcs.runners {
		uses := run.spec.Kafka != nil && strings.EqualFold(run.spec.Kafka.DataConnectionID, connID) ||
			run.spec.CDC != nil && strings.EqualFold(run.spec.CDC.DataConnectionID, connID)
		if uses && !slices.Contains(ids, run.spec.EventstreamID) {
			ids = append(ids, run.spec.EventstreamID)
		}
	}
	rt.srcs.mu.Unlock()
	for _, id := range ids {
		rt.syncSources(id)
	}
}

// stopSourcesOf stops the runners of Eventstream esID (it is being deleted).
func (rt *Runtime) stopSourcesOf(esID string) {
	r := &rt.srcs
	r.syncMu.Lock()
	defer r.syncMu.Unlock()
	r.mu.Lock()
	var stale []*sourceRunner
	for id, run := range r.runners {
		if run.spec.EventstreamID == esID {
			stale = append(stale, run)
			delete(r.runners, id)
		}
	}
	for key := range r.gens {
		if strings.HasPrefix(key, esID+"/") {
			delete(r.gens, key)
		}
	}
	r.mu.Unlock()
	for _, run := range stale {
		run.stop()
	}
}

// closeSources stops every runner; nothing restarts them afterwards.
func (rt *Runtime) closeSources() {
	r := &rt.srcs
	r.syncMu.Lock()
	defer r.syncMu.Unlock()
	r.closed = true
	r.mu.Lock()
	runs := r.runners
	r.runners = nil
	r.mu.Unlock()
	for _, run := range runs {
		run.stop()
	}
}

// kafkaSource sets the Kafka-protocol source s of run source src
// (workspace ws): its properties and its connection, or why the connection
// is missing.
func (rt *Runtime) kafkaSource(ctx context.Context, ws string, src eventstream.Source, s *sourceSpec) {
	k := *src.Kafka
	conn, err := rt.DataConnection(ctx, ws, k.DataConnectionID)
	if eventstream.IsEventHub(src.Type) {
		k = eventHubProps(k, conn)
	}
	s.Kafka = &k
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.ConnErr = fmt.Sprintf("connection %s is not registered in this workspace; PUT /v1/_emulator/connections/%s with its workspaceId and bootstrapServers (or connectionString)", k.DataConnectionID, k.DataConnectionID)
	case err != nil:
		s.ConnErr = err.Error()
	case k.Topic == "":
		s.ConnErr = fmt.Sprintf("connection %s has no Event Hubs connection string with an EntityPath; register it with connectionString", k.DataConnectionID)
	default:
		s.Conn = &conn
	}
}
