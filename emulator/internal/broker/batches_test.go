package broker

import (
	"bytes"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// batch encodes n records as a v2 record batch compressed with codec;
// garble replaces the compressed section with as many bytes that are not
// that codec's.
func batch(t testing.TB, codec kgo.CompressionCodec, n int, garble bool) []byte {
	t.Helper()
	var recs []byte
	for i := range n {
		r := kmsg.Record{OffsetDelta: int32(i), Value: []byte(strings.Repeat("value ", 30))}
		r.Length = int32(len(r.AppendTo(nil)) - 1) // the bytes after the (one-byte, zero) length
		recs = r.AppendTo(recs)
	}
	c, err := kgo.DefaultCompressor(codec)
	if err != nil {
		t.Fatal(err)
	}
	out, typ := c.Compress(new(bytes.Buffer), recs)
	if typ == kgo.CodecNone {
		t.Fatalf("codec %v did not compress", codec)
	}
	if garble {
		out = bytes.Repeat([]byte{0x5a}, len(out))
	}
	b := kmsg.RecordBatch{Magic: 2, Attributes: int16(typ), LastOffsetDelta: int32(n - 1), NumRecords: int32(n),
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, Records: append([]byte(nil), out...)}
	b.Length = int32(len(b.AppendTo(nil)) - 12)
	return b.AppendTo(nil)
}

// TestCheckRecords: batches of every codec that decompress to their
// records pass; garbled ones, and ones declaring more records than they
// hold, are refused naming the codec.
func TestCheckRecords(t *testing.T) {
	for _, c := range []kgo.CompressionCodec{kgo.GzipCompression(), kgo.SnappyCompression(), kgo.Lz4Compression(), kgo.ZstdCompression()} {
		good := batch(t, c, 5, false)
		if err := checkRecords(append(append([]byte(nil), good...), good...), nobody); err != nil {
			t.Errorf("%v: two good batches refused: %v", c, err)
		}
		err := checkRecords(append(append([]byte(nil), good...), batch(t, c, 5, true)...), nobody)
		if err == nil {
			t.Errorf("%v: garbled batch after a good one passed", c)
			continue
		}
		t.Logf("garbled: %v", err)
		var short kmsg.RecordBatch
		if err := short.ReadFrom(good); err != nil {
			t.Fatal(err)
		}
		short.NumRecords, short.LastOffsetDelta = 6, 5
		if err := checkRecords(good, nobody); err != nil {
			t.Errorf("%v: good batch refused: %v", c, err)
		}
		if err := checkRecords(short.AppendTo(nil), nobody); err == nil || !strings.Contains(err.Error(), "record 6 of 6 truncated") {
			t.Errorf("%v: batch declaring 6 records of 5: %v", c, err)
		}
	}
}

// BenchmarkCheckRecords: what the check adds to kfake's request loop for
// one produce batch of 1,000 records of 200 B, per codec (the gateway
// benchmark's batch; franz-go compresses with snappy by default).
func BenchmarkCheckRecords(b *testing.B) {
	codecs := []kgo.CompressionCodec{kgo.GzipCompression(), kgo.SnappyCompression(), kgo.Lz4Compression(), kgo.ZstdCompression()}
	for i, c := range codecs {
		raw := batch(b, c, 1000, false)
		b.Run(codecNames[i+1], func(b *testing.B) {
			b.SetBytes(1000 * 200)
			for b.Loop() {
				if err := checkRecords(raw, nobody); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// nobody trusts no producer: every compressed batch is checked.
func nobody(int64) bool { return false }

// TestCheckRecordsTrustsOwnProducers: a garbled batch of a producer the
// check trusts passes unread; the same batch under another producer ID is
// refused.
func TestCheckRecordsTrustsOwnProducers(t *testing.T) {
	var garbled kmsg.RecordBatch
	if err := garbled.ReadFrom(batch(t, kgo.SnappyCompression(), 5, true)); err != nil {
		t.Fatal(err)
	}
	own := func(id int64) bool { return id == 7 }
	garbled.ProducerID = 7
	if err := checkRecords(garbled.AppendTo(nil), own); err != nil {
		t.Errorf("own producer's batch checked: %v", err)
	}
	garbled.ProducerID = 8
	if err := checkRecords(garbled.AppendTo(nil), own); err == nil {
		t.Error("another producer's garbled batch passed")
	}
}
