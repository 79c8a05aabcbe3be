package broker

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Memory of range reads, kept between reads (kgo.Pool): each read of a
// thousand records otherwise allocates, and leaves to the collector, a
// slab of a thousand kgo.Records and the decompressed batches their keys
// and values point into. A read's memory comes back when its Batch is
// released (Batch.Release); a batch never released is left to the
// collector as before.
var (
	fetchBuffers    = &bufferPool{}
	fetchRecords    = &recordPool{}
	fetchPools      = []kgo.Pool{fetchBuffers, fetchRecords}
	fetchDecompress = kgo.DefaultDecompressor(fetchBuffers)
)

// maxPooledRecords is the longest record slab recordPool keeps.
const maxPooledRecords = 1 << 16

// recordPool is a kgo.PoolRecords of record slabs.
type recordPool struct{ p sync.Pool }

// GetRecords returns a pooled slab with room for n records, or a new one.
func (rp *recordPool) GetRecords(n int) []kgo.Record {
	if s, ok := rp.p.Get().(*[]kgo.Record); ok && cap(*s) >= n {
		return (*s)[:0]
	}
	return make([]kgo.Record, 0, n)
}

// PutRecords keeps a slab (franz-go has cleared it) unless it is too long.
func (rp *recordPool) PutRecords(s []kgo.Record) {
	if cap(s) == 0 || cap(s) > maxPooledRecords {
		return
	}
	s = s[:0]
	rp.p.Put(&s)
}

// Release gives the memory of b's records back for later reads. Neither
// the records nor their keys, values or headers may be used after it, nor
// any slice of them: copy what must outlive the batch first.
func (b *Batch) Release() {
	for _, r := range b.Records {
		r.Recycle()
	}
	b.Records = nil
}
