package broker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// clientPool lends long-lived clients to calls, one call per client at a
// time: a range read's long poll never queues another read's fetch behind
// it on a shared connection.
type clientPool struct {
	name string    // what the clients do, for errors: "fetch", "produce"
	opts []kgo.Opt // seeds, security and the clients' own settings
	keep int       // idle clients kept for the next call
	max  int       // clients at most, lent or idle (0: no bound); a call beyond waits

	mu     sync.Mutex
	idle   []idleClient  // oldest first
	made   int           // clients that exist, lent or idle
	freed  chan struct{} // closed by signal
	closed bool
}

// idleClient is a client at rest since a time.
type idleClient struct {
	cl    *kgo.Client
	since time.Time
}

// get returns the idle client that was returned first, else a new one; at
// the bound it waits while ctx lasts.
func (p *clientPool) get(ctx context.Context) (*kgo.Client, error) {
	for {
		cl, wait, freed, err := p.take()
		if cl != nil || err != nil {
			return cl, err
		}
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-freed:
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("wait for a %s client: %w", p.name, ctx.Err())
		}
		timer.Stop()
	}
}

// take lends an idle client or a new one, or says how long to wait at
// most and what closes when a client returns or goes.
func (p *clientPool) take() (*kgo.Client, time.Duration, <-chan struct{}, error) {
	p.mu.Lock()
	if len(p.idle) > 0 {
		cl := p.idle[0].cl
		p.idle = p.idle[1:]
		p.mu.Unlock()
		return cl, 0, nil, nil
	}
	if p.max > 0 && p.made >= p.max {
		wait := time.Second // until a client is returned
		if p.freed == nil {
			p.freed = make(chan struct{})
		}
		freed := p.freed
		p.mu.Unlock()
		return nil, wait, freed, nil
	}
	p.made++
	p.mu.Unlock()
	cl, err := kgo.NewClient(p.opts...)
	if err != nil {
		p.gone()
		return nil, 0, nil, fmt.Errorf("start %s client: %w", p.name, err)
	}
	return cl, 0, nil, nil
}

// signal wakes the waiting gets; p.mu is held.
func (p *clientPool) signal() {
	if p.freed != nil {
		close(p.freed)
		p.freed = nil
	}
}

// put keeps cl for the next call, or closes it when enough are idle.
func (p *clientPool) put(cl *kgo.Client) {
	p.mu.Lock()
	if !p.closed && len(p.idle) < p.keep {
		p.idle = append(p.idle, idleClient{cl, time.Now()})
		cl = nil
		p.signal()
	}
	p.mu.Unlock()
	if cl != nil {
		cl.Close()
		p.gone()
	}
}

// gone counts a client closed.
func (p *clientPool) gone() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.made--
	p.signal()
}

// close closes the idle clients; clients lent out close when returned.
func (p *clientPool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, ic := range idle {
		ic.cl.Close()
	}
}
