package broker

import (
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// clientPool lends long-lived clients to calls, one call per client at a
// time: a range read's long poll never queues another read's fetch behind
// it on a shared connection, and a produce's Flush waits for its own
// records only.
type clientPool struct {
	name   string    // what the clients do, for errors: "fetch", "produce"
	opts   []kgo.Opt // seeds, security and the clients' own settings
	keep   int       // idle clients kept for the next call
	mu     sync.Mutex
	idle   []*kgo.Client
	closed bool
}

// get returns an idle client, or a new one.
func (p *clientPool) get() (*kgo.Client, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		cl := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return cl, nil
	}
	p.mu.Unlock()
	cl, err := kgo.NewClient(p.opts...)
	if err != nil {
		return nil, fmt.Errorf("start %s client: %w", p.name, err)
	}
	return cl, nil
}

// put keeps cl for the next call, or closes it when enough are idle.
func (p *clientPool) put(cl *kgo.Client) {
	p.mu.Lock()
	if !p.closed && len(p.idle) < p.keep {
		p.idle = append(p.idle, cl)
		cl = nil
	}
	p.mu.Unlock()
	if cl != nil {
		cl.Close()
	}
}

// forget makes the idle clients forget topic (deleted), so that a topic
// made again under its name starts afresh: new metadata and, for a
// producer, new sequence numbers.
func (p *clientPool) forget(topic string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cl := range p.idle {
		cl.PurgeTopicsFromClient(topic)
	}
}

// close closes the idle clients; clients lent out close when returned.
func (p *clientPool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, cl := range idle {
		cl.Close()
	}
}
