package drain

import (
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kgo"
)

// recordSlabs is the pool the fetch decodes records into
// (kgo.PoolRecords): each record batch's records are one slab, which
// goes back to the pool once every record in it is recycled. Slabs come in
// powers of two from 256 records, so one of a size serves any batch up to
// it (a batch of 10,000 records was a 1.6 MB allocation, a third of what
// the drain allocated per record; issue 19).
//
// Only the records are pooled, not the bytes their keys and values are
// decompressed into: a sink may keep those (a writer's strings, a row
// decoded without copying), while it keeps no record (see Sink).
type recordSlabs struct {
	classes [bits.UintSize]sync.Pool
	puts    atomic.Int64 // slabs given back (for tests)
}

// minSlab is the smallest slab, in records.
const minSlab = 256

func slabClass(n int) int { return bits.Len(uint(max(n, minSlab) - 1)) }

// GetRecords returns an empty slab with room for n records.
func (s *recordSlabs) GetRecords(n int) []kgo.Record {
	c := slabClass(n)
	if p, ok := s.classes[c].Get().(*[]kgo.Record); ok {
		return (*p)[:0]
	}
	return make([]kgo.Record, 0, 1<<c)
}

// PutRecords keeps a slab for the next batch of its class.
func (s *recordSlabs) PutRecords(rs []kgo.Record) {
	c := slabClass(cap(rs))
	if cap(rs) != 1<<c {
		return // not one of ours
	}
	s.puts.Add(1)
	rs = rs[:0]
	s.classes[c].Put(&rs)
}

// round is the records of one fetch, recycled into the pool's slabs once
// every drain handed some of them is done with them. The fetch loop holds
// it while it answers; each answered drain holds it until its sink has
// written the last of the records it was given (Drain.run). A drain that
// stops half way, or whose sink panicked on them, never lets go: its
// records are then left to the garbage collector, which is always safe.
type round struct {
	holders atomic.Int32
	spoiled atomic.Bool // a sink panicked on some: never recycle
	parts   [][]*kgo.Record
}

func newRound(parts [][]*kgo.Record) *round {
	r := &round{parts: parts}
	r.holders.Store(1)
	return r
}

// hold adds a holder.
func (r *round) hold() { r.holders.Add(1) }

// spoil keeps the round's records from being recycled: a sink that
// panicked on them may still be reading them (a goroutine of its own).
func (r *round) spoil() {
	if r != nil {
		r.spoiled.Store(true)
	}
}

// release drops a holder; the last one recycles every record of the round.
func (r *round) release() {
	if r == nil || r.holders.Add(-1) > 0 || r.spoiled.Load() {
		return
	}
	for _, rs := range r.parts {
		for _, rec := range rs {
			rec.Recycle()
		}
	}
	r.parts = nil
}
