package delta

import (
	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/format"
)

// fastSnappy is the SNAPPY codec of the data files: parquet-go's, but
// encoding with the faster of the two snappy encoders klauspost/compress
// has (parquet-go's uses the one that compresses harder at about twice
// the CPU). Both write standard snappy blocks that any snappy decoder
// reads.
type fastSnappy struct{ snappy.Codec }

// Encode compresses src into a snappy block in dst's storage.
func (fastSnappy) Encode(dst, src []byte) ([]byte, error) {
	return s2.EncodeSnappy(dst, src), nil
}

// CompressionCodec is SNAPPY.
func (fastSnappy) CompressionCodec() format.CompressionCodec { return format.Snappy }
