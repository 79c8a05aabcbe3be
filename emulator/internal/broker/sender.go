package broker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxRequestBytes bounds the records a sender puts in one request before
// the next waiting piece waits for the next request.
const maxRequestBytes = 16 << 20

// maxInflight bounds a sender's requests in flight at once (Kafka's bound
// for an idempotent producer's batches in flight per partition is 5).
const maxInflight = 5

// sender sends the pieces for one partition leader. A partition has one
// batch in flight at a time, so its sequence numbers reach the broker in
// order; requests on other partitions go beside it, up to maxInflight.
// Whatever waits for a partition in flight goes in the next request on it,
// together (a group commit). No goroutine waits for work: a call sends the
// requests itself while it can, until its own piece is answered, and
// whoever ends a request sends what then may go, or leaves it to a
// goroutine once its own piece is answered.
type sender struct {
	w      *writer
	leader int32

	mu       sync.Mutex
	queue    []*piece
	inflight int                     // requests in flight
	busy     map[topicPartition]bool // partitions with a batch in flight
}

// add queues p and sends what may go until p is answered.
func (s *sender) add(p *piece) {
	s.mu.Lock()
	s.queue = append(s.queue, p)
	s.mu.Unlock()
	s.pump(p)
}

// pump sends requests while pieces may go; with own (nil: none) it
// returns once own is answered, leaving the rest to a goroutine.
func (s *sender) pump(own *piece) {
	for {
		ps := s.take()
		if len(ps) == 0 {
			if own != nil { // in a request in flight, or in the next one its end sends
				select {
				case <-own.done:
				case <-own.ctx.Done(): // the call gives up; take answers the piece if it is still queued
				}
			}
			return
		}
		s.send(ps)
		more := s.release(ps)
		if own == nil {
			continue
		}
		select {
		case <-own.done:
			if more {
				go s.pump(nil)
			}
			return
		default:
		}
	}
}

// release marks the pieces' partitions free and says whether pieces wait.
func (s *sender) release(ps []*piece) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range ps {
		for _, c := range p.chunks {
			delete(s.busy, topicPartition{p.topic, c.partition})
		}
	}
	s.inflight--
	return len(s.queue) > 0
}

// take returns the waiting pieces that may go in one request now: none of
// their partitions has a batch in flight or is wanted by a piece before
// them that cannot go, and they fit (one batch of at most maxBatchBytes
// per partition); the others stay queued, in order. A piece whose call has
// ended is answered with its context's error, unsent. It returns nothing
// while maxInflight requests are in flight.
func (s *sender) take() (took []*piece) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inflight >= maxInflight || len(s.queue) == 0 {
		return nil
	}
	if s.busy == nil {
		s.busy = map[topicPartition]bool{}
	}
	sizes := map[topicPartition]int{}
	held := map[topicPartition]bool{} // wanted by a piece left waiting
	var rest []*piece
	total := 0
	for _, p := range s.queue {
		if err := p.ctx.Err(); err != nil {
			p.fail(fmt.Errorf("not sent: %w", err))
			continue
		}
		goes := len(took) == 0 || total < maxRequestBytes
		for _, c := range p.chunks {
			tp := topicPartition{p.topic, c.partition}
			if s.busy[tp] || held[tp] || sizes[tp] > 0 && batchHeader+sizes[tp]+c.size > maxBatchBytes {
				goes = false
			}
		}
		if !goes {
			for _, c := range p.chunks {
				held[topicPartition{p.topic, c.partition}] = true
			}
			rest = append(rest, p)
			continue
		}
		for _, c := range p.chunks {
			sizes[topicPartition{p.topic, c.partition}] += c.size
			total += c.size
		}
		took = append(took, p)
	}
	s.queue = rest
	if len(took) > 0 {
		for tp := range sizes {
			s.busy[tp] = true
		}
		s.inflight++
	}
	return took
}

// part is one partition's batch in a request: the chunks it holds, in
// order, and its encoded bytes.
type part struct {
	tp     topicPartition
	chunks []*chunk
	recs   []*kgo.Record
	batch  []byte
	err    error // the last error; nil once written
}

// send writes the pieces in one request and answers them.
func (s *sender) send(ps []*piece) {
	ctx, cancel := requestContext(ps)
	defer cancel()
	defer func() {
		for _, p := range ps {
			close(p.done)
		}
	}()
	parts := gather(ps)
	gen, err := s.encode(ctx, parts)
	if err != nil {
		for _, pt := range parts {
			pt.answer(err)
		}
		return
	}
	todo := parts
	for attempt := 0; len(todo) > 0 && attempt < sendAttempts && ctx.Err() == nil; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * 10 * time.Millisecond) // a retry's backoff, not a rest between calls
		}
		todo, gen = s.attempt(ctx, todo, attempt > 0, gen)
	}
	for _, pt := range todo { // not answered: may be written, so the sequence is lost
		err := pt.err
		if err == nil {
			err = ctx.Err()
		}
		pt.answer(fmt.Errorf("not acknowledged after %d attempts, may still be written: %w", sendAttempts, err))
		s.w.reset(gen)
	}
}

// requestContext bounds a request by requestTimeout and ends it once
// every piece's call has ended.
func requestContext(ps []*piece) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	var left atomic.Int32
	left.Store(int32(len(ps)))
	stops := make([]func() bool, len(ps))
	for i, p := range ps {
		stops[i] = context.AfterFunc(p.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// gather groups the pieces' chunks by partition, in order.
func gather(ps []*piece) []*part {
	byTP := map[topicPartition]*part{}
	var parts []*part
	for _, p := range ps {
		for i := range p.chunks {
			c := &p.chunks[i]
			tp := topicPartition{p.topic, c.partition}
			pt := byTP[tp]
			if pt == nil {
				pt = &part{tp: tp}
				byTP[tp] = pt
				parts = append(parts, pt)
			}
			pt.chunks = append(pt.chunks, c)
			pt.recs = append(pt.recs, c.recs...)
		}
	}
	return parts
}

// encode gives each part its sequence numbers under the current producer
// and encodes its batch; it returns the producer's generation.
func (s *sender) encode(ctx context.Context, parts []*part) (uint64, error) {
	for range 3 { // a reset between the producer and its sequences: again
		pid, epoch, gen, err := s.w.producer(ctx)
		if err != nil {
			return 0, err
		}
		ok := true
		for _, pt := range parts {
			seq, current := s.w.sequence(pt.tp, len(pt.recs), gen)
			if !current {
				ok = false
				break
			}
			pt.batch = appendBatch(pt.batch[:0], batchIdentity{pid, epoch, seq}, pt.recs)
		}
		if ok {
			return gen, nil
		}
	}
	return 0, errors.New("the producer ID changed while the batches were made")
}

// answer answers the part's chunks: written when err is nil.
func (pt *part) answer(err error) {
	for _, c := range pt.chunks {
		c.err = err
	}
}

// written sets the records' partition and offsets from the batch's base
// offset.
func (pt *part) written(base int64) {
	for i, r := range pt.recs {
		r.Partition, r.Offset = pt.tp.partition, base+int64(i)
	}
	pt.answer(nil)
}

// attempt sends todo (to this sender's leader, or after a retriable error
// to each partition's leader now) and returns the parts to send again.
func (s *sender) attempt(ctx context.Context, todo []*part, fresh bool, gen uint64) ([]*part, uint64) {
	byLeader := map[int32][]*part{s.leader: todo}
	if fresh {
		byLeader = s.w.regroup(ctx, todo, s.leader)
	}
	var again []*part
	for leader, pts := range byLeader {
		resp, err := s.w.request(ctx, leader, pts)
		if err != nil {
			for _, pt := range pts {
				pt.err = err
			}
			again = append(again, pts...)
			continue
		}
		for _, pt := range pts {
			switch code := resp[pt.tp]; {
			case code.err == nil:
				pt.written(code.base)
			case errors.Is(code.err, kerr.OutOfOrderSequenceNumber) || errors.Is(code.err, kerr.UnknownProducerID) ||
				errors.Is(code.err, kerr.InvalidProducerEpoch):
				// Not written: a new producer sends it again from sequence 0.
				s.w.reset(gen)
				pt.err = code.err
				if g, err := s.encode(ctx, []*part{pt}); err == nil {
					gen = g
					again = append(again, pt)
				} else {
					pt.answer(err)
				}
			case kerr.IsRetriable(code.err):
				pt.err = code.err
				again = append(again, pt)
			default: // refused, not written: its sequence numbers were not taken
				pt.answer(code.err)
				s.w.reset(gen)
			}
		}
	}
	return again, gen
}

// partResult is a partition's answer: its base offset, or its error.
type partResult struct {
	base int64
	err  error
}

// request sends one Produce request of pts to leader.
func (w *writer) request(ctx context.Context, leader int32, pts []*part) (map[topicPartition]partResult, error) {
	req := kmsg.NewPtrProduceRequest()
	req.Acks = -1
	req.TimeoutMillis = int32(requestTimeout / time.Millisecond)
	topics := map[string]int{}
	for _, pt := range pts {
		i, ok := topics[pt.tp.topic]
		if !ok {
			i = len(req.Topics)
			topics[pt.tp.topic] = i
			t := kmsg.NewProduceRequestTopic()
			t.Topic = pt.tp.topic
			req.Topics = append(req.Topics, t)
		}
		p := kmsg.NewProduceRequestTopicPartition()
		p.Partition, p.Records = pt.tp.partition, pt.batch
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, p)
	}
	kresp, err := w.cl.Broker(int(leader)).Request(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("produce to broker %d: %w", leader, err)
	}
	resp, ok := kresp.(*kmsg.ProduceResponse)
	if !ok {
		return nil, fmt.Errorf("produce to broker %d: answered %T", leader, kresp)
	}
	out := make(map[topicPartition]partResult, len(pts))
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			out[topicPartition{t.Topic, p.Partition}] = partResult{base: p.BaseOffset, err: kerr.ErrorForCode(p.ErrorCode)}
		}
	}
	for _, pt := range pts {
		if _, ok := out[pt.tp]; !ok {
			out[pt.tp] = partResult{err: fmt.Errorf("produce to broker %d: no answer for %s/%d", leader, pt.tp.topic, pt.tp.partition)}
		}
	}
	return out, nil
}

// regroup groups pts by their partitions' leaders now (fallback: leader).
func (w *writer) regroup(ctx context.Context, pts []*part, leader int32) map[int32][]*part {
	out := map[int32][]*part{}
	fresh := map[string][]int32{}
	for _, pt := range pts {
		ls, ok := fresh[pt.tp.topic]
		if !ok {
			ls, _ = w.partitionLeaders(ctx, pt.tp.topic, true)
			fresh[pt.tp.topic] = ls
		}
		l := leader
		if int(pt.tp.partition) < len(ls) && ls[pt.tp.partition] >= 0 {
			l = ls[pt.tp.partition]
		}
		out[l] = append(out[l], pt)
	}
	return out
}
