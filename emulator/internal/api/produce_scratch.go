package api

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// produceScratch holds one produce call's buffers: the body, the events
// read from it, the records made of them (their keys and values point into
// the body) and the answer. A call takes one from the pool and puts it back
// once Kafka has acknowledged every record, so the next call reuses the
// memory instead of allocating and collecting about half a megabyte per
// 1,000 events.
type produceScratch struct {
	body    []byte
	events  eventBufs
	slab    []kgo.Record
	records []*kgo.Record
	answer  []byte
}

// eventBufs are the slices fastEvents reads the two halves of a body into.
type eventBufs struct{ first, second []eventIn }

// Bounds of what goes back to the pool: a rare large call's buffers are
// left to the collector rather than kept for the small ones.
const (
	maxPooledBody   = 1 << 20
	maxPooledEvents = 16 << 10
)

var scratchPool = sync.Pool{New: func() any { return new(produceScratch) }}

// getScratch takes a produce call's buffers from the pool.
func getScratch() *produceScratch { return scratchPool.Get().(*produceScratch) }

// release puts sc back in the pool. Only a call whose records no producer
// holds any more may release its buffers.
func (sc *produceScratch) release() {
	if sc.reset() {
		scratchPool.Put(sc)
	}
}

// reset empties sc for the next call and reports whether it is worth
// keeping.
func (sc *produceScratch) reset() bool {
	if cap(sc.body) > maxPooledBody || cap(sc.slab) > maxPooledEvents {
		return false
	}
	// Nothing of this call may reach the next: recordsFor hands out
	// zeroed records, and no slot keeps a body alive.
	clear(sc.events.first[:cap(sc.events.first)])
	clear(sc.events.second[:cap(sc.events.second)])
	clear(sc.slab)
	sc.body = sc.body[:0]
	return true
}

// recordsFor returns n empty records, each its own slab slot.
func (sc *produceScratch) recordsFor(n int) []*kgo.Record {
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
