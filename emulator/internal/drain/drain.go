// Package drain delivers an Eventstream's Kafka topic to one destination.
//
// A Drain consumes every partition of the topic, hands records to its Sink
// in batches, and after the sink has written a batch durably commits the
// next offsets to the destination's own consumer group (at-least-once),
// in the background while the next batch is written (see committer); the
// group's offsets are current whenever the drain stops, fails a write, or
// is closed. The sink makes it exactly-once: it records the last offset it
// wrote per partition atomically with the data (a Delta txn action, a
// Kusto ingest tag), and Resume reports those offsets so a replay after a
// crash between the write and the offset commit writes nothing twice.
//
// A batch the sink cannot write is retried with backoff until it succeeds or
// the drain is closed; the records stay in Kafka meanwhile, and WaitPast
// reports the sink's error to callers waiting on those offsets. A drain
// configured to StopOnError (a destination whose error policy is fail)
// instead stops at the first error, leaving the batch's offsets
// uncommitted (see StoppedError).
package drain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Sink writes batches to one destination.
type Sink interface {
	// Resume returns, per partition, the highest offset already written
	// durably; partitions with nothing written are absent.
	Resume(ctx context.Context, partitions []int32) (map[int32]int64, error)
	// Write durably and atomically writes the batch. Writing the same
	// offsets twice must not duplicate anything.
	Write(ctx context.Context, b Batch) error
}

// tickEvery is the longest a drain waits for records before ticking.
const tickEvery = 500 * time.Millisecond

// Ticker is implemented by sinks with work that time alone makes due (a
// window closed by the clock, a batch held long enough): Tick runs after
// every poll, about twice a second, with or without new records, with
// Config.Now's time.
type Ticker interface {
	Tick(ctx context.Context, now time.Time) error
}

// Batch is a run of records, in offset order per partition.
type Batch struct {
	// Records are shared with the drain (and with other drains of its
	// pool): a sink reads them and does not modify them or the slice.
	Records []*kgo.Record
	// Last is, per partition, the last offset in Records.
	Last map[int32]int64
}

// Config configures a Drain.
type Config struct {
	Seeds []string
	Topic string
	// Group is the consumer group offsets are committed to.
	Group string
	Sink  Sink
	// MaxBatch caps the records handed to the sink at once (default 10000).
	MaxBatch int
	Logger   *slog.Logger
	// Pool is the Kafka connections the drain shares with others; nil
	// gives the drain a pool of its own (on Seeds), closed with it.
	Pool *Pool
	// StopOnError stops the drain at the first error of its sink (a
	// write, a tick or a skip) instead of retrying: the batch's offsets
	// are not committed and Status reports a *StoppedError until the
	// drain is started again.
	StopOnError bool
	// Now is the clock a Ticker sink is ticked with (default time.Now):
	// the emulator's controllable clock, so that advancing it closes
	// windows and commits batches.
	Now func() time.Time
}

// Drain is one running destination consumer.
type Drain struct {
	cfg     Config
	pool    *Pool
	adm     *kadm.Client
	commits *committer
	cancel  context.CancelFunc
	done    chan struct{}

	mu       sync.Mutex
	next     map[int32]int64 // per partition: offsets below are delivered
	err      error           // the sink's last error, nil once a write succeeds
	changed  chan struct{}   // closed and replaced on every change
	written  int64
	failures int64
	skipped  int64 // records skipped by the sink's policy after a panic
	panics   int64 // panics recovered
	startErr error // set on a drain that never started (see Failed)
	stopErr  error // set once StopOnError stopped it (a *StoppedError)
}

// Start positions a consumer per partition (the group's committed offset,
// or past what the sink already wrote, whichever is later; partitions with
// neither start at the end of the log as it is now) and starts delivering.
func Start(ctx context.Context, cfg Config) (*Drain, error) {
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 10_000
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	pool, own := cfg.Pool, cfg.Pool == nil
	if own {
		var err error
		if pool, err = NewPool(cfg.Seeds, cfg.Logger); err != nil {
			return nil, err
		}
	}
	start, err := retrying(ctx, func() (map[int32]int64, error) { return startOffsets(ctx, pool.adm, cfg) })
	if err != nil {
		if own {
			_ = pool.Close(context.Background())
		}
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	d := &Drain{cfg: cfg, pool: pool, adm: pool.adm, cancel: cancel, done: make(chan struct{}), next: start, changed: make(chan struct{}),
		commits: newCommitter(pool.adm, cfg.Group, cfg.Topic, cfg.Logger)}
	go func() {
		defer close(d.done)
		if own {
			defer pool.Close(context.Background())
		}
		d.run(runCtx)
		d.commits.close() // the last batch's offsets, before the pool goes
	}()
	return d, nil
}

// retrying runs fn until it succeeds, fails for good, or 30 s pass: a
// broker that has just started answers COORDINATOR_NOT_AVAILABLE and the
// like for a while, and those are worth waiting out.
func retrying[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	deadline := time.Now().Add(30 * time.Second)
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		v, err := fn()
		if err == nil || !kerr.IsRetriable(err) || time.Now().After(deadline) {
			return v, err
		}
		select {
		case <-ctx.Done():
			return v, err
		case <-time.After(wait):
		}
	}
}

// startOffsets reads the group's committed offsets and the sink's resume
// points; with neither, a partition starts at its current end.
func startOffsets(ctx context.Context, adm *kadm.Client, cfg Config) (map[int32]int64, error) {
	ends, err := adm.ListEndOffsets(ctx, cfg.Topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("list offsets of %s: %w", cfg.Topic, err)
	}
	var parts []int32
	ends.Each(func(o kadm.ListedOffset) { parts = append(parts, o.Partition) })
	committed, err := adm.FetchOffsets(ctx, cfg.Group)
	if errors.Is(err, kerr.GroupIDNotFound) { // a group that never committed
		committed, err = kadm.OffsetResponses{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fetch offsets of group %s: %w", cfg.Group, err)
	}
	var written map[int32]int64
	err = guard(func() (err error) { written, err = cfg.Sink.Resume(ctx, parts); return err })
	if err != nil {
		return nil, &ResumeError{Err: err}
	}
	start := map[int32]int64{}
	moved := kadm.Offsets{}
	for _, p := range parts {
		o := int64(-1)
		if c, ok := committed.Lookup(cfg.Topic, p); ok && c.Err == nil && c.At >= 0 {
			o = c.At
		}
		at := o
		if w, ok := written[p]; ok {
			o = max(o, w+1)
		}
		if o < 0 {
			end, _ := ends.Lookup(cfg.Topic, p)
			o = end.Offset
		}
		if o != at {
			moved.AddOffset(cfg.Topic, p, o, -1)
		}
		start[p] = o
	}
	// Remember where a new binding starts, so a restart does not move it,
	// and where the sink's replay of a batch left the group behind.
	if len(moved) > 0 {
		if err := commit(ctx, adm, cfg.Group, moved); err != nil {
			return nil, err
		}
	}
	return start, nil
}

func commit(ctx context.Context, adm *kadm.Client, group string, offs kadm.Offsets) error {
	resp, err := adm.CommitOffsets(ctx, group, offs)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		return fmt.Errorf("commit offsets of group %s: %w", group, err)
	}
	return nil
}

func (d *Drain) run(ctx context.Context) {
	var (
		buf   []*kgo.Record // fetched, not yet delivered
		ahead *prefetch     // a read started before the write in flight
		idle  = &standing{pool: d.pool}
	)
	defer idle.drop()
	for ctx.Err() == nil {
		var f fetched
		switch {
		case len(buf) > 0:
			f.records, buf = buf, nil
		case ahead != nil:
			early := ahead.answered()
			f, ahead = ahead.take(d.positions()), nil
			if early {
				f = d.topUp(ctx, f)
			}
		default:
			// A wait bounded by the pool's beat, so that Ticker sinks run
			// even when no record comes.
			f = idle.poll(ctx, d.cfg.Topic, d.positions)
		}
		if ctx.Err() != nil {
			return
		}
		if f.err != nil {
			d.fetchFailed(ctx, f.err)
		}
		if !d.tick(ctx) {
			return
		}
		if len(f.records) == 0 {
			continue
		}
		n := min(len(f.records), d.cfg.MaxBatch)
		b := Batch{Records: f.records[:n:n], Last: lastOffsets(f.records[:n])}
		buf = f.records[n:]
		if ahead == nil && len(buf) <= d.cfg.MaxBatch {
			// Read what follows while this batch (and the one left in
			// buf) is written: a fetch that waits until buf is empty
			// leaves the drain idle for its whole decoding.
			ahead = d.readAhead(ctx, b.Records, buf)
		}
		if !d.deliver(ctx, b) {
			return
		}
	}
}

// lastOffsets returns, per partition, the offset of the last of rs (in
// offset order per partition, a partition's records mostly together).
func lastOffsets(rs []*kgo.Record) map[int32]int64 {
	last := map[int32]int64{}
	for i, r := range rs {
		if i+1 == len(rs) || rs[i+1].Partition != r.Partition {
			last[r.Partition] = r.Offset
		}
	}
	return last
}

// tick runs a Ticker sink's time-driven work; false means the drain
// stopped on its error (StopOnError).
func (d *Drain) tick(ctx context.Context) bool {
	t, ok := d.cfg.Sink.(Ticker)
	if !ok {
		return true
	}
	err := guard(func() error { return t.Tick(ctx, d.cfg.Now()) })
	if pe := (*PanicError)(nil); errors.As(err, &pe) {
		d.notePanic("tick", Batch{}, pe)
	}
	if err != nil && ctx.Err() == nil {
		if d.cfg.StopOnError {
			d.stop(err)
			return false
		}
		d.cfg.Logger.Warn("destination tick failed; retrying", "group", d.cfg.Group, "err", err)
		d.update(func() { d.err = err; d.failures++ })
	}
	return true
}

// prefetch is a poll for the records after a batch, made while it is written.
type prefetch struct {
	from map[int32]int64
	ch   chan fetched
}

// readAhead starts polling from the positions the drain will be at once
// the given runs of records are delivered.
func (d *Drain) readAhead(ctx context.Context, runs ...[]*kgo.Record) *prefetch {
	from := d.positions()
	for _, run := range runs {
		for p, o := range lastOffsets(run) {
			from[p] = o + 1
		}
	}
	pf := &prefetch{from: from, ch: make(chan fetched, 1)}
	go func() { pf.ch <- d.pool.poll(ctx, d.cfg.Topic, from, tickEvery) }()
	return pf
}

// take waits for the prefetch; its records are used only when the drain is
// where the prefetch assumed it would be.
func (pf *prefetch) take(now map[int32]int64) fetched {
	f := <-pf.ch
	if !maps.Equal(now, pf.from) {
		return fetched{}
	}
	return f
}

// answered reports whether the prefetch has its answer already.
func (pf *prefetch) answered() bool { return len(pf.ch) > 0 }

// topUpWait is the longest a drain waits for the fetch loop to come to a
// top-up (topUp) before it writes what it has.
const topUpWait = 2 * time.Millisecond

// topUp adds to f, a prefetch answered while the batch before it was
// written, what the log took in since: without it a batch holds only the
// records that came first during that write, and the rest wait a write
// more. The log is read as it is, without waiting for more.
func (d *Drain) topUp(ctx context.Context, f fetched) fetched {
	if f.err != nil || len(f.records) == 0 || len(f.records) >= d.cfg.MaxBatch {
		return f
	}
	from := d.positions()
	for p, o := range lastOffsets(f.records) {
		from[p] = o + 1
	}
	more := d.pool.pollNow(ctx, d.cfg.Topic, from, topUpWait)
	if more.err != nil || len(more.records) == 0 {
		return f
	}
	f.records = join([][]*kgo.Record{f.records, more.records})
	return f
}

// positions returns, per partition, the next offset to deliver.
func (d *Drain) positions() map[int32]int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[int32]int64, len(d.next))
	for p, o := range d.next {
		out[p] = o
	}
	return out
}

// fetchFailed logs a failed read and waits a little; a position the log no
// longer holds (deleted by retention, or a topic re-created) moves to the
// nearest offset it holds.
func (d *Drain) fetchFailed(ctx context.Context, err error) {
	d.cfg.Logger.Warn("drain fetch failed", "topic", d.cfg.Topic, "group", d.cfg.Group, "err", err)
	if errors.Is(err, kerr.OffsetOutOfRange) {
		starts, serr := d.adm.ListStartOffsets(ctx, d.cfg.Topic)
		ends, eerr := d.adm.ListEndOffsets(ctx, d.cfg.Topic)
		if serr == nil && eerr == nil {
			d.update(func() {
				for p, o := range d.next {
					if s, ok := starts.Lookup(d.cfg.Topic, p); ok && s.Err == nil && o < s.Offset {
						d.next[p] = s.Offset
					}
					if e, ok := ends.Lookup(d.cfg.Topic, p); ok && e.Err == nil && o > e.Offset {
						d.next[p] = e.Offset
					}
				}
			})
		}
	}
	select {
	case <-ctx.Done():
	case <-time.After(250 * time.Millisecond):
	}
}

// deliver writes b until it succeeds (true) or the drain stops (false). A
// batch whose write panics is delivered again record by record; a record
// that panics alone is skipped by the sink's policy. With StopOnError the
// first error stops the drain, b's offsets uncommitted.
func (d *Drain) deliver(ctx context.Context, b Batch) bool {
	backoff := 50 * time.Millisecond
	skipped := false
	for {
		err := guard(func() error { return d.cfg.Sink.Write(ctx, b) })
		var pe *PanicError
		if errors.As(err, &pe) {
			d.notePanic("write", b, pe)
			if len(b.Records) > 1 {
				return d.isolate(ctx, b)
			}
			if err = d.skip(ctx, b.Records[0], pe); err == nil {
				skipped = true
				break
			}
		}
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return false
		}
		if d.cfg.StopOnError {
			d.stop(err)
			return false
		}
		d.cfg.Logger.Warn("destination write failed; retrying", "topic", d.cfg.Topic, "group", d.cfg.Group, "err", err)
		d.commits.flush(ctx) // the group at the last batch written, while this one fails
		d.update(func() { d.err = err; d.failures++ })
		select {
		case <-ctx.Done():
			return false
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
	next := make(map[int32]int64, len(b.Last))
	for p, o := range b.Last {
		next[p] = o + 1
	}
	d.commits.note(next)
	d.update(func() {
		for p, o := range next {
			d.next[p] = o
		}
		d.err = nil
		if skipped {
			d.skipped++
		} else {
			d.written += int64(len(b.Records))
		}
	})
	return true
}

func (d *Drain) update(fn func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fn()
	close(d.changed)
	d.changed = make(chan struct{})
}

// ErrClosed is returned by WaitPast once the drain is closed.
var ErrClosed = errors.New("drain closed")

// WaitPast blocks until every partition in offsets has been delivered past
// the given offset, ctx ends, or a write attempt made while it waits fails
// (the sink's error is returned; delivery goes on in the background). A
// failure from before the call does not count: the next attempt decides.
func (d *Drain) WaitPast(ctx context.Context, offsets map[int32]int64) error {
	if d.startErr != nil {
		return d.startErr
	}
	d.mu.Lock()
	seen := d.failures
	d.mu.Unlock()
	for {
		d.mu.Lock()
		ch, err, failures, stopped, done := d.changed, d.err, d.failures, d.stopErr, true
		for p, o := range offsets {
			if d.next[p] <= o {
				done = false
			}
		}
		d.mu.Unlock()
		switch {
		case done:
			return nil
		case stopped != nil:
			return stopped
		case err != nil && failures > seen:
			return err
		}
		select {
		case <-ch:
		case <-d.done:
			if err := d.stopped(); err != nil {
				return err
			}
			return ErrClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Status is a snapshot of a drain's progress.
type Status struct {
	Next     map[int32]int64 // per partition: offsets below are delivered
	Written  int64           // records delivered since start
	Failures int64           // failed write attempts since start
	Skipped  int64           // records the sink could not take, skipped by its policy
	Panics   int64           // panics recovered in the sink or its operators
	Err      error           // the last write error, nil when healthy
	// ReadErr is the last error reading the topic from Kafka (a broker
	// lost, a partition without a leader), nil once a read succeeds; the
	// drain keeps trying meanwhile and delivers what it missed after.
	ReadErr error
	// StartErr is why the drain could not start (a Failed drain).
	StartErr error
	// Stopped is set once StopOnError stopped the drain (Err is then a
	// *StoppedError).
	Stopped bool
}

// Status returns the drain's progress.
func (d *Drain) Status() Status {
	d.mu.Lock()
	defer d.mu.Unlock()
	next := make(map[int32]int64, len(d.next))
	for p, o := range d.next {
		next[p] = o
	}
	panics := d.panics
	if p, ok := d.cfg.Sink.(Panicker); ok {
		panics += p.Panics()
	}
	st := Status{Next: next, Written: d.written, Failures: d.failures, Skipped: d.skipped, Panics: panics, Err: d.err, StartErr: d.startErr,
		Stopped: d.stopErr != nil}
	if d.pool != nil {
		st.ReadErr = d.pool.ReadError(d.cfg.Topic)
	}
	return st
}

// Close stops the drain and waits for it to finish the write in flight.
func (d *Drain) Close() error {
	if d.cancel == nil { // Failed
		return nil
	}
	d.cancel()
	<-d.done
	return nil
}

// Topic is the Kafka topic the drain reads.
func (d *Drain) Topic() string { return d.cfg.Topic }
