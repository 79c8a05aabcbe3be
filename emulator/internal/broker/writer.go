package broker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// Settings of the writer.
const (
	// requestTimeout bounds one Produce request: the broker's own wait for
	// replicas (the request's timeout) and the writer's wait for the answer.
	requestTimeout = 30 * time.Second
	// sendAttempts is how often a request, or a partition's batch the
	// broker answered with a retriable error, is sent before its records
	// fail: the same bytes, producer ID and sequence numbers each time,
	// so the broker keeps one copy.
	sendAttempts = 4
	// maxProduceVersion is the Produce version the writer speaks: v11
	// (Apache Kafka 3.9's newest) names topics; v13 would need topic IDs.
	maxProduceVersion = 11
)

// writer sends produce calls in Produce requests it builds itself on one
// shared client (kmsg), as an idempotent producer: one producer ID and
// epoch (InitProducerID) and a sequence number per partition. One sender per
// partition leader keeps one batch in flight per partition and puts every
// call that waits for a partition into its next request (a group commit),
// each partition's records in one batch. A call's records that fit one batch per partition are in one
// request, all or nothing per partition, without resting anything: the
// request is the writer's, not a send loop's.
type writer struct {
	cl    *kgo.Client
	trust func(int64) // tells the embedded broker's batch check an ID is the emulator's

	mu      sync.Mutex
	pid     int64 // -1: none yet, or reset
	epoch   int16
	gen     uint64 // counts resets: sequences of an older generation are not counted
	seqs    map[topicPartition]int32
	leaders map[string][]int32 // per topic, partition → leader broker
	senders map[int32]*sender
	closed  bool
}

// topicPartition names one partition.
type topicPartition struct {
	topic     string
	partition int32
}

// newWriter starts a writer on a client of its own made with opts.
func newWriter(opts []kgo.Opt, trust func(int64)) (*writer, error) {
	versions := kversion.Stable()
	versions.SetMaxKeyVersion(int16(kmsg.Produce), maxProduceVersion)
	cl, err := kgo.NewClient(append(append([]kgo.Opt(nil), opts...), kgo.MaxVersions(versions), producerAcks())...)
	if err != nil {
		return nil, fmt.Errorf("start produce client: %w", err)
	}
	return &writer{cl: cl, trust: trust, pid: -1,
		seqs: map[topicPartition]int32{}, leaders: map[string][]int32{}, senders: map[int32]*sender{}}, nil
}

// close closes the client: requests in flight fail, and calls after it.
func (w *writer) close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	w.mu.Unlock()
	w.cl.Close()
}

// forget drops what the writer knows of topic (deleted): a topic made
// again under its name starts from sequence number 0.
func (w *writer) forget(topic string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.leaders, topic)
	for tp := range w.seqs {
		if tp.topic == topic {
			delete(w.seqs, tp)
		}
	}
}

// producer returns the producer ID and epoch, asking the cluster for them
// first if there are none, and the generation they belong to.
func (w *writer) producer(ctx context.Context) (int64, int16, uint64, error) {
	w.mu.Lock()
	if w.pid >= 0 {
		defer w.mu.Unlock()
		return w.pid, w.epoch, w.gen, nil
	}
	gen := w.gen
	w.mu.Unlock()
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionTimeoutMillis = -1
	req.ProducerID, req.ProducerEpoch = -1, -1
	resp, err := req.RequestWith(ctx, w.cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err != nil {
		return 0, 0, 0, fmt.Errorf("init producer id: %w", err)
	}
	if w.trust != nil {
		w.trust(resp.ProducerID)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gen == gen && w.pid < 0 {
		w.pid, w.epoch = resp.ProducerID, resp.ProducerEpoch
	}
	return w.pid, w.epoch, w.gen, nil
}

// reset drops the producer ID of generation gen and every sequence
// number: after a batch the broker did not take, or may have, the next
// batch starts a new producer at sequence 0, which the broker accepts
// whatever became of the old one's.
func (w *writer) reset(gen uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gen != gen {
		return
	}
	w.gen++
	w.pid = -1
	w.seqs = map[topicPartition]int32{}
}

// sequence reserves n sequence numbers on tp for generation gen and
// returns the first; ok is false when gen is no longer current.
func (w *writer) sequence(tp topicPartition, n int, gen uint64) (int32, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gen != gen {
		return 0, false
	}
	s := w.seqs[tp]
	w.seqs[tp] = int32((int64(s) + int64(n)) % (1 << 31)) // wraps to 0 as Kafka's sequences do
	return s, true
}

// partitionLeaders returns topic's leader per partition, from the cache or
// the cluster (fresh: ask the cluster in any case).
func (w *writer) partitionLeaders(ctx context.Context, topic string, fresh bool) ([]int32, error) {
	w.mu.Lock()
	ls, ok := w.leaders[topic]
	w.mu.Unlock()
	if ok && !fresh {
		return ls, nil
	}
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, w.cl)
	if err != nil {
		return nil, fmt.Errorf("load metadata of %s: %w", topic, err)
	}
	if len(resp.Topics) != 1 {
		return nil, fmt.Errorf("load metadata of %s: %d topics answered", topic, len(resp.Topics))
	}
	t := resp.Topics[0]
	if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
		return nil, fmt.Errorf("load metadata of %s: %w", topic, err)
	}
	ls = make([]int32, len(t.Partitions))
	for _, p := range t.Partitions {
		if p.Partition < 0 || int(p.Partition) >= len(ls) {
			return nil, fmt.Errorf("load metadata of %s: partition %d of %d", topic, p.Partition, len(ls))
		}
		ls[p.Partition] = p.Leader
	}
	w.mu.Lock()
	w.leaders[topic] = ls
	w.mu.Unlock()
	return ls, nil
}

// sender returns the sender to leader, started on first use.
func (w *writer) sender(leader int32) (*sender, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errors.New("the broker is closed")
	}
	s := w.senders[leader]
	if s == nil {
		s = &sender{w: w, leader: leader}
		w.senders[leader] = s
	}
	return s, nil
}
