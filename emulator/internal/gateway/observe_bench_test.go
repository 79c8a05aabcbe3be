package gateway

import (
	"bytes"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// BenchmarkCountBatches is the data insights' cost per forwarded produce
// of 1,000 records: a walk over the records of an uncompressed batch, a
// decompression into a pooled buffer and the walk for a compressed one.
func BenchmarkCountBatches(b *testing.B) {
	plain := rawBatch(benchBatch, false)
	b.Run("none", func(b *testing.B) { benchCount(b, plain) })
	var batch kmsg.RecordBatch
	if err := batch.ReadFrom(plain); err != nil {
		b.Fatal(err)
	}
	c, err := kgo.DefaultCompressor(kgo.SnappyCompression())
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	recs, codec := c.Compress(&buf, batch.Records)
	batch.Attributes, batch.Records = int16(codec), recs
	batch.Length = int32(len(batch.AppendTo(nil)) - 12)
	snappy := batch.AppendTo(nil)
	b.Run("snappy", func(b *testing.B) { benchCount(b, snappy) })
}

func benchCount(b *testing.B, raw []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if n, _ := countBatches(raw); n != benchBatch {
			b.Fatalf("counted %d records", n)
		}
	}
}
