package broker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// produceLog records, for each Produce request the embedded broker
// handles, how many records each partition's batches add. kfake handles
// produce requests one at a time and appends each partition's batches in
// order, so the n-th request's records on a partition follow the records
// of every earlier request there.
type produceLog struct {
	mu   sync.Mutex
	seen map[kmsg.Request]bool // kfake may show a control one request twice
	reqs []map[int32]int64     // per request: partition → records added
}

// observe installs the log as a control of b's cluster that never handles
// a request.
func observe(b *Broker) *produceLog {
	l := &produceLog{seen: map[kmsg.Request]bool{}}
	b.cluster.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		b.cluster.KeepControl()
		pr := req.(*kmsg.ProduceRequest)
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.seen[req] {
			return nil, nil, false
		}
		l.seen[req] = true
		counts := map[int32]int64{}
		for _, t := range pr.Topics {
			for _, p := range t.Partitions {
				for raw := p.Records; len(raw) >= 61; { // one or more v2 batches
					var rb kmsg.RecordBatch
					if err := rb.ReadFrom(raw); err != nil {
						break
					}
					counts[p.Partition] += int64(rb.NumRecords)
					raw = raw[12+int(rb.Length):]
				}
			}
		}
		l.reqs = append(l.reqs, counts)
		return nil, nil, false
	})
	return l
}

// request returns the index of the request whose batch on partition p
// holds offset o, replaying the log's appends (-1: none).
func (l *produceLog) request(p int32, o int64) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	var end int64
	for i, counts := range l.reqs {
		if end += counts[p]; counts[p] > 0 && o < end {
			return i
		}
	}
	return -1
}

// TestProduceCallIsOneRequest: three rounds of eight concurrent Produce
// calls of 500 unkeyed records each into a topic of four partitions. Every
// call lands as one contiguous run of offsets on one partition, added by
// one Produce request (which may hold other calls too: the writer puts the
// calls that wait into its next request), so a reader that fetches between
// two requests (a drain) sees all of a call or none of it. Before the
// pooled producers, the first record of a call left alone in a request of
// its own (no linger) and the rest followed in the next ones.
func TestProduceCallIsOneRequest(t *testing.T) {
	const topic, rounds, calls, n = "one-batch", 3, 8, 500
	b := embeddedTopic(t, topic, 4)
	log := observe(b)
	var pos [][]Position
	for range rounds {
		round := make([][]Position, calls)
		errs := make([]error, calls)
		var wg sync.WaitGroup
		for c := range calls {
			wg.Go(func() {
				recs := make([]*kgo.Record, n)
				for i := range recs {
					recs[i] = &kgo.Record{Value: fmt.Appendf(nil, `{"call":%d,"i":%d}`, c, i)}
				}
				round[c], errs[c] = b.Produce(t.Context(), topic, recs)
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		pos = append(pos, round...)
	}
	for c, call := range pos {
		first := call[0]
		req := log.request(first.Partition, first.Offset)
		for i, p := range call {
			if p.Partition != first.Partition || p.Offset != first.Offset+int64(i) {
				t.Fatalf("call %d record %d at %d/%d, want %d/%d (one contiguous run on one partition); records per request and partition: %v",
					c, i, p.Partition, p.Offset, first.Partition, first.Offset+int64(i), log.reqs)
			}
			if r := log.request(p.Partition, p.Offset); r != req {
				t.Fatalf("call %d: record 0 came in Produce request %d, record %d in request %d (%d requests for %d calls)",
					c, req, i, r, len(log.reqs), len(pos))
			}
		}
		if got := log.reqs[req][first.Partition]; got < n || got%n != 0 {
			t.Fatalf("call %d: its request added %d records to partition %d, want whole calls of %d", c, got, first.Partition, n)
		}
	}
	if len(log.reqs) > len(pos) {
		t.Fatalf("%d Produce requests for %d calls, want one at most each", len(log.reqs), len(pos))
	}
}

// TestProduceKeyedRecordsFollowTheirKey: in one call of keyed and unkeyed
// records, each keyed record lands on the partition a default franz-go
// client (Kafka's murmur2 key hash, as the Java client) sends its key to,
// the unkeyed ones on one partition, and the whole call in one Produce
// request.
func TestProduceKeyedRecordsFollowTheirKey(t *testing.T) {
	const topic, ref, n = "keyed", "keyed-reference", 200
	b := embeddedTopic(t, topic, 4)
	if err := b.CreateTopic(t.Context(), ref); err != nil {
		t.Fatal(err)
	}
	log := observe(b)
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Value: []byte("v")}
		if i%2 == 0 {
			recs[i].Key = fmt.Appendf(nil, "key-%d", i)
		}
	}
	pos, err := b.Produce(t.Context(), topic, recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(log.reqs) != 1 {
		t.Fatalf("%d Produce requests for one call, want 1", len(log.reqs))
	}

	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Bootstrap()...), kgo.DefaultProduceTopic(ref))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	unkeyed := int32(-1)
	for i, r := range recs {
		if r.Key == nil {
			if unkeyed < 0 {
				unkeyed = pos[i].Partition
			}
			if pos[i].Partition != unkeyed {
				t.Fatalf("unkeyed record %d on partition %d, want %d like the call's first", i, pos[i].Partition, unkeyed)
			}
			continue
		}
		want, err := cl.ProduceSync(t.Context(), &kgo.Record{Key: r.Key}).First()
		if err != nil {
			t.Fatal(err)
		}
		if pos[i].Partition != want.Partition {
			t.Fatalf("key %s on partition %d, a default client sends it to %d", r.Key, pos[i].Partition, want.Partition)
		}
	}
}

// TestProduceCallOverOneBatch: an unkeyed call of 3 MB, more than one
// batch holds (ProducerBatchMaxBytes, 1,000,012 bytes, under Kafka's
// max.message.bytes), puts one batch on each of several partitions, each a
// contiguous run of the call's records in order, all in one Produce
// request.
func TestProduceCallOverOneBatch(t *testing.T) {
	const topic, n = "big-call", 3000
	b := embeddedTopic(t, topic, 4)
	log := observe(b)
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Value: make([]byte, 1000)}
	}
	pos, err := b.Produce(t.Context(), topic, recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(log.reqs) != 1 {
		t.Fatalf("%d Produce requests for one call, want 1", len(log.reqs))
	}
	runs := map[int32]bool{}
	for i, p := range pos {
		if i > 0 && p.Partition == pos[i-1].Partition {
			if p.Offset != pos[i-1].Offset+1 {
				t.Fatalf("record %d at %d/%d after %d/%d", i, p.Partition, p.Offset, pos[i-1].Partition, pos[i-1].Offset)
			}
			continue
		}
		if runs[p.Partition] {
			t.Fatalf("record %d starts a second run on partition %d", i, p.Partition)
		}
		runs[p.Partition] = true
	}
	if len(runs) < 3 {
		t.Fatalf("3 MB on %d partitions, want a batch of at most 1 MB on each of 3 or more", len(runs))
	}
}

// TestProduceUnansweredCallFailsInTime: the broker never answers a call's
// Produce request; when the call's context ends it fails with a
// ProduceError counting every record as not acknowledged, and the next call
// (on another producer: the stuck one is not lent again) lands.
func TestProduceUnansweredCallFailsInTime(t *testing.T) {
	const topic = "unanswered"
	b := embeddedTopic(t, topic, 4)
	b.cluster.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		return nil, nil, true // handled, never answered (once)
	})
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	recs := []*kgo.Record{{Value: []byte("a")}, {Value: []byte("b")}}
	_, err := b.Produce(ctx, topic, recs)
	var pe *ProduceError
	if !errors.As(err, &pe) || pe.Failed != 2 || pe.Total != 2 || !strings.Contains(err.Error(), "may still be written") {
		t.Fatalf("unanswered produce: %v, want a ProduceError of 2 of 2 that may still be written", err)
	}
	pos, err := b.Produce(t.Context(), topic, []*kgo.Record{{Value: []byte("c")}})
	if err != nil || len(pos) != 1 || pos[0].Offset < 0 {
		t.Fatalf("next produce: %v %v", pos, err)
	}
}
