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

// fetchWait is how long the shared fetch waits on the broker for records.
// A drain that finished a write joins the next fetch, so this also bounds
// how long it can wait to be included.
const fetchWait = 200 * time.Millisecond

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
}

// want is one drain's request for the records of its topic from its
// positions on; the fetch loop answers it once, on ch.
type want struct {
	topic string
	from  map[int32]int64
	ch    chan fetched
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
	w := &want{topic: topic, from: from, ch: make(chan fetched, 1)}
	p.mu.Lock()
	p.wants[w] = struct{}{}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case f := <-w.ch:
		return f
	case <-ctx.Done():
	case <-t.C:
	case <-p.done:
	}
	p.mu.Lock()
	delete(p.wants, w)
	p.mu.Unlock()
	select { // answered meanwhile: the records are not lost, just read again
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
