package gateway

import (
	"encoding/binary"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The ProduceObserver is told the grant that sent a produce, its records
// and their value bytes: keys, headers and framing are not counted, and a
// compressed batch counts its values decompressed, so that every codec
// counts the same as an uncompressed produce (and as the HTTP door).
func TestProduceObserverCountsValueBytes(t *testing.T) {
	var mu sync.Mutex
	type seen struct {
		node       string
		n, payload int64
	}
	var got []seen
	observe := func(g Grant, n, size int64) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, seen{g.Node, n, size})
	}
	e := newEnvWith(t, []Option{WithProduceObserver(observe)})
	pass := e.auth.add(e.gw.Addr(), Grant{KeyID: "src/PrimaryKey", Topic: testTopic, Node: "src"})
	codecs := map[string]kgo.CompressionCodec{"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(),
		"snappy": kgo.SnappyCompression(), "lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression()}
	for name, codec := range codecs {
		t.Run(name, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			cl := e.client(pass, kgo.ProducerBatchCompression(codec), kgo.DefaultProduceTopic(testTopic),
				kgo.RecordPartitioner(kgo.ManualPartitioner()))
			recs := []*kgo.Record{
				{Key: []byte("key"), Value: []byte("0123456789"), Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("header")}}},
				{Value: []byte("abcde")},
				{Key: []byte("tombstone")}, // a null value is 0 bytes
			}
			if err := cl.ProduceSync(testCtx(t), recs...).FirstErr(); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			var n, size int64
			for _, s := range got {
				if s.node != "src" {
					t.Errorf("observer told node %q, want the grant's", s.node)
				}
				n, size = n+s.n, size+s.payload
			}
			if n != 3 || size != 15 {
				t.Errorf("observed %d records of %d value bytes, want 3 of 15 (%+v)", n, size, got)
			}
		})
	}
}

// recordValues refuses records it cannot read whole.
func TestRecordValuesRefusesTruncatedRecords(t *testing.T) {
	// One record (zigzag varints): length 9; attributes 0; deltas 0, 0;
	// key length -1 (null); value length 3, then "abc"; 0 headers.
	rec := []byte{18, 0, 0, 0, 1, 6, 'a', 'b', 'c', 0}
	if n, size, ok := recordValues(rec, 1); !ok || n != 1 || size != 3 {
		t.Fatalf("whole record: %d %d %v", n, size, ok)
	}
	for cut := 1; cut < len(rec); cut++ {
		if _, _, ok := recordValues(rec[:cut], 1); ok {
			t.Errorf("record cut at %d read", cut)
		}
	}
	if _, _, ok := recordValues(rec, 2); ok {
		t.Error("two records read out of one")
	}
}

// FuzzRecordValues: any bytes read without a panic, and what is counted
// lies within them.
func FuzzRecordValues(f *testing.F) {
	f.Add([]byte{18, 0, 0, 0, 1, 6, 'a', 'b', 'c', 0}, int32(1))
	f.Add([]byte{1, 0xff, 0xff, 0xff}, int32(3))
	f.Fuzz(func(t *testing.T, raw []byte, count int32) {
		count = min(max(count, 0), 1000)
		n, size, _ := recordValues(raw, count)
		if n > int64(count) || size < 0 || size > int64(len(raw)) {
			t.Fatalf("%d records of %d value bytes out of %d bytes", n, size, len(raw))
		}
	})
}

// varint reads what binary.Varint reads.
func TestVarintIsBinaryVarint(t *testing.T) {
	for _, b := range [][]byte{{0}, {1}, {2}, {0x7f}, {0x80, 1}, {0xff, 0xff, 3}, {0x80}, {}} {
		v, n := varint(b)
		wv, wn := binary.Varint(b)
		if v != wv || n != wn {
			t.Errorf("varint(%x) = %d, %d; binary.Varint %d, %d", b, v, n, wv, wn)
		}
	}
}
