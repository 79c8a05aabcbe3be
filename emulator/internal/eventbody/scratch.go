package eventbody

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Scratch holds one produce call's buffers: the body, the events
// read from it, the records made of them (their keys and values point into
// the body) and the answer. A call takes one from the pool and puts it back
// once Kafka has acknowledged every record, so the next call reuses the
// memory instead of allocating and collecting about half a megabyte per
// 1,000 events.
type Scratch struct {
	Body    []byte
	events  eventBufs
	slab    []kgo.Record
	records []*kgo.Record
	Answer  []byte
}

// eventBufs are the slices fastEvents reads the two halves of a body into.
type eventBufs struct{ first, second []eventIn }

// Bounds of what goes back to the pool: a rare large call's buffers are
// left to the collector rather than kept for the small ones.
const (
	maxPooledBody   = 1 << 20
	maxPooledEvents = 16 << 10
)

var scratchPool = sync.Pool{New: func() any { return new(Scratch) }}

// GetScratch takes a produce call's buffers from the pool.
func GetScratch() *Scratch { return scratchPool.Get().(*Scratch) }

// release puts sc back in the pool. Only a call whose records no producer
// holds any more may release its buffers.
func (sc *Scratch) Release() {
	if sc.reset() {
		scratchPool.Put(sc)
	}
}

// reset empties sc for the next call and reports whether it is worth
// keeping.
func (sc *Scratch) reset() bool {
	if cap(sc.Body) > maxPooledBody || cap(sc.slab) > maxPooledEvents {
		return false
	}
	// Nothing of this call may reach the next: recordsFor hands out
	// zeroed records, and no slot keeps a body alive.
	clear(sc.events.first[:cap(sc.events.first)])
	clear(sc.events.second[:cap(sc.events.second)])
	clear(sc.slab)
	sc.Body = sc.Body[:0]
	return true
}

// recordsFor returns n empty records, each its own slab slot.
func (sc *Scratch) recordsFor(n int) []*kgo.Record {
	if len(sc.slab) < n {
		sc.slab = make([]kgo.Record, n) // one allocation for all
		sc.records = make([]*kgo.Record, n)
	}
	records := sc.records[:n]
	for i := range records {
		records[i] = &sc.slab[i]
	}
	return records
}
