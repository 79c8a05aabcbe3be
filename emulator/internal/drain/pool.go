package drain

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// fetchWait is how long the shared fetch waits on the broker for records
// while records flow. A drain that finished a write joins the next fetch,
// so this also bounds how long it can wait to be included.
const fetchWait = 200 * time.Millisecond

// idleFetchWait is the longest the shared fetch waits once rounds come
// back empty: the wait doubles from fetchWait per empty round up to it, and
// drops back to fetchWait as soon as a round answers. The broker answers at
// once when a record arrives on a partition being waited on, so an idle
// destination still delivers a new event at once; only a drain that joins
// during an idle round (a destination just started) waits up to this long
// to be included. Fewer rounds keep hundreds of idle destinations from
// costing CPU (issue 19).
const idleFetchWait = time.Second

// Pool is the Kafka connections every drain of a server shares: one client
// for offsets (listing, fetching and committing each destination's group)
// and one fetch loop that reads for every drain at once, so that the file
// descriptors in use do not grow with the number of destinations.
//
// Each drain keeps its own positions: the fetch loop asks, per partition,
// from the lowest position of the drains waiting on it, and hands each
// drain only the records at or past its own position. A drain busy writing
// is not waited for: it asks again when it is done. Offsets are committed
// per destination group as before, so exactly-once (the sink's resume
// points) and per-destination progress are unchanged by the sharing.
type Pool struct {
	cl     *kgo.Client
	adm    *kadm.Client
	log    *slog.Logger
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	wants   map[*want]struct{}
	wake    chan struct{} // signalled when a want is added
	leaders map[string]map[int32]int32
	readErr map[string]error // per topic: the last fetch's error, nil once one succeeds

	beatMu sync.Mutex
	beatCh chan struct{} // closed at the next beat; nil while no drain waits
}

// want is one drain's request for the records of its topic from its
// positions on; the fetch loop answers it once, on ch.
type want struct {
	topic string
	from  map[int32]int64
	ch    chan fetched
	// now asks for what the log holds at once: the round that carries it
	// does not wait on the broker, and answers it even with no records.
	now bool
}

// fetched is the answer to a want: records in offset order per partition,
// or the error of a partition.
type fetched struct {
	records []*kgo.Record
	err     error
}

// NewPool connects to the cluster at seeds, with opts (TLS and SASL for a
// secured cluster).
func NewPool(seeds []string, logger *slog.Logger, opts ...kgo.Opt) (*Pool, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	// Fetch v12 and below name topics (v13 on use topic ids).
	versions := kversion.Stable()
	versions.SetMaxKeyVersion(int16(kmsg.Fetch), 12)
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seeds...), kgo.MaxVersions(versions)}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("connect drains: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Pool{cl: cl, adm: kadm.NewClient(cl), log: logger, cancel: cancel, done: make(chan struct{}),
		wants: map[*want]struct{}{}, wake: make(chan struct{}, 1), leaders: map[string]map[int32]int32{},
		readErr: map[string]error{}}
	go func() {
		defer close(p.done)
		p.run(ctx)
	}()
	return p, nil
}

// Close stops the fetch loop and disconnects, giving up on a client that
// does not close by the time ctx ends.
func (p *Pool) Close(ctx context.Context) error {
	p.cancel()
	closed := make(chan struct{})
	go func() {
		<-p.done
		p.cl.Close()
		close(closed)
	}()
	select {
	case <-closed:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close kafka client of the drains: %w", ctx.Err())
	}
}

// poll asks for the records of topic from the given positions, waiting
// until some come, ctx ends, or wait passes (nothing, no error).
func (p *Pool) poll(ctx context.Context, topic string, from map[int32]int64, wait time.Duration) fetched {
	w := p.ask(topic, from)
	if f, ok := p.await(ctx, w, wait); ok {
		return f
	}
	return p.withdraw(w)
}

// pollNow returns the records of topic the log holds from the given
// positions, without waiting for more; nothing when the fetch loop does
// not come to it within wait (a round already out for other drains).
func (p *Pool) pollNow(ctx context.Context, topic string, from map[int32]int64, wait time.Duration) fetched {
	w := p.askFor(&want{topic: topic, from: from, ch: make(chan fetched, 1), now: true})
	if f, ok := p.await(ctx, w, wait); ok {
		return f
	}
	return p.withdraw(w)
}

// ask registers a standing request for the records of topic from the
// given positions; the fetch loop answers it once, on w.ch. A drain keeps
// it across its ticks while nothing comes (await), so that an idle drain
// costs the loop nothing new, and withdraws it when it stops waiting.
func (p *Pool) ask(topic string, from map[int32]int64) *want {
	return p.askFor(&want{topic: topic, from: from, ch: make(chan fetched, 1)})
}

// askFor registers w and wakes the fetch loop.
func (p *Pool) askFor(w *want) *want {
	p.mu.Lock()
	p.wants[w] = struct{}{}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return w
}

// await waits for w's answer until ctx ends or wait passes; ok is false
// when it was not answered (w still stands).
func (p *Pool) await(ctx context.Context, w *want, wait time.Duration) (fetched, bool) {
	t := time.NewTimer(wait)
	defer t.Stop()
	return p.awaitUntil(ctx, w, t.C, nil)
}

// awaitUntil waits for w's answer until ctx ends, timer fires or beat is
// closed (a nil one never is).
func (p *Pool) awaitUntil(ctx context.Context, w *want, timer <-chan time.Time, beat <-chan struct{}) (f fetched, ok bool) {
	select {
	case f = <-w.ch:
		return f, true
	case <-ctx.Done():
	case <-timer:
	case <-beat:
	case <-p.done:
	}
	return fetched{}, false
}

// beat returns a channel closed at the pool's next beat, about tickEvery
// after the first drain that waits on it. Idle drains tick on the beat
// together rather than each on a timer of its own, so that hundreds of
// them wake the process twice a second, not hundreds of times (issue 19).
func (p *Pool) beat() <-chan struct{} {
	p.beatMu.Lock()
	defer p.beatMu.Unlock()
	if p.beatCh == nil {
		p.beatCh = make(chan struct{})
		time.AfterFunc(tickEvery, p.fireBeat)
	}
	return p.beatCh
}

// fireBeat closes the current beat; the next waiter starts another.
func (p *Pool) fireBeat() {
	p.beatMu.Lock()
	ch := p.beatCh
	p.beatCh = nil
	p.beatMu.Unlock()
	close(ch)
}

// withdraw takes back a standing request; an answer that came meanwhile
// is returned (the records are not lost, just read again otherwise).
func (p *Pool) withdraw(w *want) fetched {
	p.mu.Lock()
	delete(p.wants, w)
	p.mu.Unlock()
	select {
	case f := <-w.ch:
		return f
	default:
		return fetched{}
	}
}

// ReadError is the error of the last fetch of topic from the cluster, nil
// when it succeeded (or none was made): a broker lost, a partition without
// a leader. Drains report it in their Status while it lasts.
func (p *Pool) ReadError(topic string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.readErr[topic]
}

// noteReads records the outcome of one fetch round for each topic in it.
func (p *Pool) noteReads(topics map[string]map[int32]int64, errs map[string]error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for t := range topics {
		if err := errs[t]; err != nil {
			p.readErr[t] = err
		} else {
			delete(p.readErr, t)
		}
	}
}
