package broker

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// maxPooledCheck is the largest buffer checkBuffers keeps: a bigger batch
// gets a buffer of its own, left to the garbage collector.
const maxPooledCheck = 8 << 20

// checkBuffers are the buffers produce batches are decompressed into to be
// checked (kgo.PoolDecompressBytes): a checked batch's records are counted
// and dropped, so one buffer serves batch after batch instead of a new
// allocation, cleared, per batch (measured in the gateway, where the check
// was first: a third of its CPU on produce, after the decompression itself).
var checkBuffers = &bufferPool{}

type bufferPool struct{ p sync.Pool }

// GetDecompressBytes returns a pooled buffer, or a new one; a codec
// that needs more room than it has allocates a bigger one, which is then
// the one kept.
func (bp *bufferPool) GetDecompressBytes([]byte, kgo.CompressionCodecType) []byte {
	if b, ok := bp.p.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, 256<<10)
}

// PutDecompressBytes keeps b for the next batch unless it is too large.
func (bp *bufferPool) PutDecompressBytes(b []byte) {
	if cap(b) == 0 || cap(b) > maxPooledCheck {
		return
	}
	b = b[:0]
	bp.p.Put(&b)
}
