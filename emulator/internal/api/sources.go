package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/sample"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Sources the emulator runs itself: SampleData sources generate events and
// Kafka-protocol sources (ApacheKafka, ConfluentCloud, AmazonMSKKafka) copy
// a topic of another cluster, both into the Eventstream's DefaultStream
// topic. Each such source of a deployed definition has one runner while
// neither it nor its Eventstream is paused; syncSources reconciles the
// runners with the stored definition after every change (deploy, pause,
// resume, delete, connection change), so a runner never outlives its node.

const (
	statusCreating = "Creating"
	// SourceFailed is the errorCode of a failed source in the topology.
	SourceFailed = "SourceFailed"
)

// sourceError is why a runner is failing; the topology renders it.
type sourceError struct{ err error }

func (e *sourceError) Error() string     { return e.err.Error() }
func (e *sourceError) Unwrap() error     { return e.err }
func (e *sourceError) ErrorCode() string { return SourceFailed }

// sourceSpec is what a runner needs; two specs that marshal alike run alike.
type sourceSpec struct {
	EventstreamID string            `json:"eventstreamId"`
	ID            string            `json:"id"`
	Type          string            `json:"type"`
	Topic         string            `json:"topic"`
	Sample        string            `json:"sample,omitempty"`
	Kafka         *kafkaSourceProps `json:"kafka,omitempty"`
	Conn          *kafkaConnection  `json:"conn,omitempty"`
	ConnErr       string            `json:"connErr,omitempty"`
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

// sourceRegistry holds the runners of an API. The zero value is ready.
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

// planSource checks a definition's source of a type the emulator runs and
// canonicalises it; ok is false for the other types.
func (a *API) planSource(ctx context.Context, ws string, n *node) (ok bool, err error) {
	if n.Is("SampleData") {
		n.Raw["type"] = "SampleData"
		return true, checkSampleSource(n)
	}
	if t, isKafka := oneOf(n.Type, kafkaSourceTypes); isKafka {
		n.Raw["type"] = t
		return true, a.checkKafkaSource(ctx, ws, n)
	}
	return false, nil
}

// wantedSources lists the run sources of es's definition.
func (a *API) wantedSources(ctx context.Context, es store.Item) ([]sourceSpec, error) {
	props, err := eventstream.Decode(es)
	if err != nil || len(props.Streams) == 0 {
		return nil, err
	}
	t, err := props.Topology()
	if t == nil || err != nil {
		return nil, err
	}
	streamPaused := props.StreamPaused()
	var out []sourceSpec
	for _, n := range t.Sources {
		id := strings.ToLower(n.ID())
		s := sourceSpec{EventstreamID: es.ID, ID: id, Type: n.Type, Topic: props.Streams[0].Topic,
			paused: streamPaused || props.IsPaused(id)}
		switch {
		case n.Is("SampleData"):
			s.Sample, _ = sample.Canonical(str(n.Props, "type"))
		case slices.Contains(kafkaSourceTypes, n.Type):
			k := kafkaPropsOf(n)
			s.Kafka = &k
			conn, err := a.dataConnection(ctx, es.WorkspaceID, k.DataConnectionID)
			switch {
			case errors.Is(err, store.ErrNotFound):
				s.ConnErr = fmt.Sprintf("connection %s is not registered in this workspace; PUT /v1/_emulator/connections/%s with its workspaceId and bootstrapServers", k.DataConnectionID, k.DataConnectionID)
			case err != nil:
				s.ConnErr = err.Error()
			default:
				s.Conn = &conn
			}
		default:
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// syncSources makes the runners of Eventstream esID match its stored
// definition: a runner per unpaused run source, restarted when its node,
// stream or connection changed, stopped when gone.
func (a *API) syncSources(esID string) {
	if !a.cfg.Broker.Enabled() {
		return
	}
	ctx := context.Background()
	r := &a.srcs
	r.syncMu.Lock()
	defer r.syncMu.Unlock()
	if r.closed {
		return
	}
	want := map[string]sourceSpec{}
	if es, err := a.cfg.Store.GetItem(ctx, esID); err == nil && es.Type == TypeEventstream {
		specs, err := a.wantedSources(ctx, es)
		if err != nil {
			a.cfg.Logger.Error("read the sources of an Eventstream", "eventstream", esID, "err", err)
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
		r.runners[id] = a.startSource(w)
	}
}

// startSource starts the runner of s; r.mu is held.
func (a *API) startSource(s sourceSpec) *sourceRunner {
	ctx, cancel := context.WithCancel(context.Background())
	run := &sourceRunner{spec: s, fp: s.fingerprint(), cancel: cancel, done: make(chan struct{})}
	log := a.cfg.Logger.With("eventstream", s.EventstreamID, "source", s.ID, "type", s.Type)
	switch {
	case s.Sample != "":
		key := s.EventstreamID + "/" + s.ID
		g := a.srcs.gens[key]
		if g == nil || g.Kind() != s.Sample {
			g, _ = sample.New(s.Sample, seedOf(s.ID), sample.WithClock(a.cfg.Now))
			a.srcs.gens[key] = g
		}
		go func() { defer close(run.done); a.runSample(ctx, run, g, log) }()
	default:
		go func() { defer close(run.done); a.runKafka(ctx, run, log) }()
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

// syncSourcesUsing reconciles the Eventstreams whose sources use connection id.
func (a *API) syncSourcesUsing(connID string) {
	a.srcs.mu.Lock()
	var ids []string
	for _, run := range a.srcs.runners {
		if k := run.spec.Kafka; k != nil && strings.EqualFold(k.DataConnectionID, connID) && !slices.Contains(ids, run.spec.EventstreamID) {
			ids = append(ids, run.spec.EventstreamID)
		}
	}
	a.srcs.mu.Unlock()
	for _, id := range ids {
		a.syncSources(id)
	}
}

// stopSourcesOf stops the runners of Eventstream esID (it is being deleted).
func (a *API) stopSourcesOf(esID string) {
	r := &a.srcs
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

// StartSources starts the runners of every stored Eventstream; the server
// calls it once at start-up.
func (a *API) StartSources(ctx context.Context) error {
	if !a.cfg.Broker.Enabled() {
		return nil
	}
	ids, err := a.cfg.Store.ItemIDsOfType(ctx, TypeEventstream)
	if err != nil {
		return fmt.Errorf("start sources: %w", err)
	}
	for _, id := range ids {
		a.syncSources(id)
	}
	return nil
}

// CloseSources stops every runner; nothing restarts them afterwards.
func (a *API) CloseSources() {
	r := &a.srcs
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

// sourceStatus is a definition source's runtime status: Paused when it or
// its Eventstream is, Running for a CustomEndpoint, and for a run source
// its runner's state (Creating until it first delivered or joined, Failed
// with the reason), or Unknown without a broker.
func (a *API) sourceStatus(props eventstream.Model, n *node) (string, error) {
	id := strings.ToLower(n.ID())
	if props.IsPaused(id) || props.StreamPaused() {
		return statusPaused, nil
	}
	if n.Is("CustomEndpoint") {
		return statusRunning, nil
	}
	a.srcs.mu.Lock()
	run := a.srcs.runners[id]
	a.srcs.mu.Unlock()
	if run == nil {
		return statusUnknown, nil
	}
	switch ready, err := run.state(); {
	case err != nil:
		return statusFailed, err
	case !ready:
		return statusCreating, nil
	}
	return statusRunning, nil
}
