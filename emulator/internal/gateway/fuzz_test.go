package gateway

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// FuzzReadRequest feeds arbitrary bytes to the frame reader and request
// header parser the way a client connection does, at the limit before SASL
// and at the one after, and checks that nothing panics, that no frame is
// longer than its limit, that header and body split the frame, and that
// memory follows the bytes given rather than the sizes they declare.
func FuzzReadRequest(f *testing.F) {
	for _, seed := range hostileFrames() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, limit := range []int32{preAuthMaxFrame, maxFrame} {
			// readBody holds at most twice what arrived, past a first chunk,
			// and a frame's copies add up to twice its length again.
			bound := uint64(frameChunk+4*len(data)) + 1<<20
			grew, frames := leastAllocated(bound, func() []*request { return readRequests(t, data, limit) })
			if grew > bound {
				t.Fatalf("limit %d: reading %d bytes allocated %d, over %d", limit, len(data), grew, bound)
			}
			bound = uint64(512*len(data)) + 1<<20
			grew, _ = leastAllocated(bound, func() []*request { parseBodies(frames); return nil })
			if grew > bound {
				t.Fatalf("decoding %d bytes of requests allocated %d, over %d", len(data), grew, bound)
			}
		}
	})
}

// leastAllocated runs f and returns the bytes the process allocated
// meanwhile, and f's result. Over bound it runs f twice more and keeps the
// least figure, so that the fuzzing engine's own allocations are not blamed
// on f while a real excess, which recurs, still shows.
func leastAllocated(bound uint64, f func() []*request) (uint64, []*request) {
	least := uint64(1<<64 - 1)
	var out []*request
	for range 3 {
		before := allocatedBytes()
		out = f()
		if least = min(least, allocatedBytes()-before); least <= bound {
			break
		}
	}
	return least, out
}

// readRequests reads and splits every frame in data.
func readRequests(t *testing.T, data []byte, limit int32) []*request {
	r := bufio.NewReader(bytes.NewReader(data))
	var out []*request
	for {
		frame, err := readFrame(r, limit)
		if err != nil {
			return out
		}
		if len(frame) > int(limit) {
			t.Fatalf("read a %d byte frame over the %d byte limit", len(frame), limit)
		}
		req, err := parseRequest(frame)
		if err != nil {
			continue
		}
		if len(req.header)+len(req.body) != len(frame) || !bytes.Equal(append(req.header[:len(req.header):len(req.header)], req.body...), frame) {
			t.Fatalf("header %x and body %x do not make up frame %x", req.header, req.body, frame)
		}
		out = append(out, req)
	}
}

// parseBodies decodes each request body as the session's dispatch does;
// franz-go's decoder must neither panic nor allocate far beyond its input
// (an array claims at most one element per byte left).
func parseBodies(reqs []*request) {
	for _, r := range reqs {
		if r.msg != nil && r.version <= r.msg.MaxVersion() {
			_ = r.msg.ReadFrom(r.body)
		}
	}
}

// allocatedBytes is the heap memory allocated so far by the process.
func allocatedBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// hostileFrames are the seed inputs: the sizes and headers a hostile or
// broken client sends, and the legitimate frames around them.
func hostileFrames() [][]byte {
	size := func(n uint32, rest ...byte) []byte { return append(binary.BigEndian.AppendUint32(nil, n), rest...) }
	ok := legitimateFrames()
	seeds := [][]byte{
		{},
		{0, 0},
		size(0),
		size(0x7fffffff, 0, 18, 0, 3), // the largest int32 size, then a trickle
		size(90<<20, bytes.Repeat([]byte{0}, 16)...),        // the 90 MiB frame, a trickle of it sent
		size(100<<20+1, 0, 17, 0, 1),                        // one byte over the authenticated limit
		size(preAuthMaxFrame+1, 0, 17, 0, 1),                // one byte over the unauthenticated limit
		size(0xffffffff),                                    // -1
		size(0x80000000, 1, 2, 3),                           // the most negative size
		size(20, 0, 18, 0, 3, 0),                            // a header cut short by the end of input
		size(6, 0, 18, 0, 3, 0, 0),                          // a frame too short for a header
		size(10, 0, 18, 0, 3, 0, 0, 0, 1, 0x7f, 0xff),       // a client id longer than the frame
		size(10, 0, 18, 0, 3, 0, 0, 0, 1, 0xff, 0xff),       // a null client id, then nothing
		size(11, 0, 18, 0, 3, 0, 0, 0, 1, 0, 0, 0xff),       // flexible header: a tag count cut short
		size(14, 0, 18, 0, 3, 0, 0, 0, 1, 0, 0, 1, 0, 0x7f), // a tag claiming more than is left
		size(21, 0, 18, 0, 3, 0, 0, 0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), // a huge tag count
		size(12, 0x7f, 0xff, 0x7f, 0xff, 0, 0, 0, 1, 0, 0, 0, 0),                                            // unknown key and version
		[]byte(strings.Repeat("\xde\xad\xbe\xef", 64)),                                                      // garbage
		[]byte("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"),                                                 // the wrong protocol
	}
	seeds = append(seeds, ok...)
	sasl := bytes.Join(ok[:3], nil)
	seeds = append(seeds, sasl)                          // SASL's frames back to back
	seeds = append(seeds, append(sasl, size(90<<20)...)) // then a huge declaration
	return seeds
}

// legitimateFrames are the frames a client sends through SASL and a produce
// whose value is the deeply nested event.
func legitimateFrames() [][]byte {
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("fuzz-seed"))
	av := kmsg.NewPtrApiVersionsRequest()
	av.SetVersion(3)
	av.ClientSoftwareName, av.ClientSoftwareVersion = "fuzz", "1.0"
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.SetVersion(1)
	hs.Mechanism = "PLAIN"
	au := kmsg.NewPtrSASLAuthenticateRequest()
	au.SetVersion(2)
	au.SASLAuthBytes = []byte("\x00$ConnectionString\x00Endpoint=sb://127.0.0.1:9093/;SharedAccessKeyName=key_1;SharedAccessKey=c2VjcmV0;EntityPath=es-orders")
	md := kmsg.NewPtrMetadataRequest()
	md.SetVersion(12)
	pr := kmsg.NewPtrProduceRequest()
	pr.SetVersion(9)
	pr.Acks = -1
	pr.TimeoutMillis = 1000
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic = "es-orders"
	pp := kmsg.NewProduceRequestTopicPartition()
	pp.Records = []byte(strings.Repeat(`{"a":[`, 86) + strings.Repeat(`]}`, 86))
	pt.Partitions = append(pt.Partitions, pp)
	pr.Topics = append(pr.Topics, pt)
	var out [][]byte
	for i, r := range []kmsg.Request{av, hs, au, md, pr} {
		out = append(out, f.AppendRequest(nil, r, int32(i+1)))
	}
	return out
}
