package broker

import (
	"context"
	"errors"
	"math/rand/v2"

	"github.com/twmb/franz-go/pkg/kgo"
)

// errEarlierFailed fails the records of a call after a part of it that
// failed: they are not sent, so the call's records stay in order.
var errEarlierFailed = errors.New("not sent: an earlier part of the call failed")

// chunk is a call's records on one partition in one round (one batch).
type chunk struct {
	partition int32
	recs      []*kgo.Record
	size      int   // an upper bound of the records' encoded size
	err       error // set by the sender; nil: written, recs have offsets
}

// piece is the part of one round of a call that goes to one leader: the
// sender puts all of it in one request.
type piece struct {
	ctx    context.Context
	topic  string
	leader int32
	chunks []chunk
	done   chan struct{} // closed once every chunk has its answer
}

// fail answers every chunk of p with err.
func (p *piece) fail(err error) {
	for i := range p.chunks {
		p.chunks[i].err = err
	}
	close(p.done)
}

// produce writes recs to topic and returns the records that failed, and
// how many were not answered before ctx ended. A round of the call (one
// batch per partition) goes in one request per leader; the next round
// follows once the previous one is written.
func (w *writer) produce(ctx context.Context, topic string, recs []*kgo.Record) (map[*kgo.Record]error, int) {
	stamp(recs)
	for _, r := range recs {
		r.Topic = topic
	}
	failures := map[*kgo.Record]error{}
	leaders, err := w.partitionLeaders(ctx, topic, false)
	if err == nil && len(leaders) == 0 {
		err = errors.New("the topic has no partitions")
	}
	if err != nil {
		for _, r := range recs {
			failures[r] = err
		}
		return failures, 0
	}
	rounds := splitCall(ctx, recs, len(leaders))
	for i, round := range rounds {
		pieces := w.post(ctx, topic, round, leaders)
		answeredAll(ctx, pieces)
		if n := unanswered(pieces, nil); n > 0 { // a piece answered as ctx ended counts as answered
			return nil, n + unanswered(nil, rounds[i+1:])
		}
		failed := false
		for _, p := range pieces {
			for _, c := range p.chunks {
				if c.err != nil {
					failed = true
					for _, r := range c.recs {
						failures[r] = c.err
					}
				}
			}
		}
		if failed {
			for _, later := range rounds[i+1:] {
				for _, c := range later {
					for _, r := range c.recs {
						failures[r] = errEarlierFailed
					}
				}
			}
			break
		}
	}
	return failures, 0
}

// answeredAll waits until every piece is answered, or ctx ends.
func answeredAll(ctx context.Context, pieces []*piece) {
	for _, p := range pieces {
		select {
		case <-p.done:
		case <-ctx.Done():
			return
		}
	}
}

// unanswered counts the records of the pieces not answered (their call's
// context ended) and of the rounds not sent.
func unanswered(pieces []*piece, later [][]chunk) int {
	n := 0
	for _, p := range pieces {
		select {
		case <-p.done:
			continue
		default:
		}
		for _, c := range p.chunks {
			n += len(c.recs)
		}
	}
	for _, round := range later {
		for _, c := range round {
			n += len(c.recs)
		}
	}
	return n
}

// post hands the chunks of one round to the senders of their leaders.
func (w *writer) post(ctx context.Context, topic string, round []chunk, leaders []int32) []*piece {
	for _, c := range round {
		if leaders[c.partition] < 0 { // no leader now: ask again, once
			if fresh, err := w.partitionLeaders(ctx, topic, true); err == nil && len(fresh) == len(leaders) {
				leaders = fresh
			}
			break
		}
	}
	byLeader := map[int32]*piece{}
	var pieces []*piece
	for _, c := range round {
		l := leaders[c.partition]
		p := byLeader[l]
		if p == nil {
			p = &piece{ctx: ctx, topic: topic, leader: l, done: make(chan struct{})}
			byLeader[l] = p
			pieces = append(pieces, p)
		}
		p.chunks = append(p.chunks, c)
	}
	for i, p := range pieces {
		l := p.leader
		s, err := w.sender(l)
		if err != nil || l < 0 {
			if err == nil {
				err = errNoLeader
			}
			p.fail(err)
			continue
		}
		if i < len(pieces)-1 {
			go s.add(p) // the last piece's sender is this call's; the others run beside it
			continue
		}
		s.add(p)
	}
	return pieces
}

// errNoLeader fails records whose partition has no leader.
var errNoLeader = errors.New("the partition has no leader")

// splitCall puts each record on its partition (of n) and cuts each
// partition's records into batches of at most maxBatchBytes: round k
// holds every partition's k-th batch. A record under PinPartition goes to
// the pinned partition, a keyed one where Kafka's default partitioner
// sends its key (murmur2), and unkeyed ones stay on one partition until
// its batch is full, then move to the partition this call has put the
// fewest bytes on (a random one to start, and among equals).
func splitCall(ctx context.Context, recs []*kgo.Record, n int) [][]chunk {
	pin, pinned := ctx.Value(pinKey{}).(int32)
	pinned = pinned && pin >= 0 && int(pin) < n
	batches := make([][]chunk, n) // per partition, its batches in order
	bytes := make([]int, n)       // per partition, this call's bytes
	start := rand.IntN(n)
	unkeyed := -1
	for _, r := range recs {
		size := recordSize(r)
		var p int
		switch {
		case pinned:
			p = int(pin)
		case r.Key != nil:
			p = keyPartition(r.Key, n)
		default:
			if unkeyed < 0 || !fits(batches[unkeyed], size) {
				unkeyed = leastFilled(bytes, start)
			}
			p = unkeyed
		}
		bytes[p] += size
		bs := batches[p]
		if len(bs) == 0 || !fits(bs, size) {
			bs = append(bs, chunk{partition: int32(p)})
		}
		last := &bs[len(bs)-1]
		last.recs = append(last.recs, r)
		last.size += size
		batches[p] = bs
	}
	var rounds [][]chunk
	for k := 0; ; k++ {
		var round []chunk
		for _, bs := range batches {
			if k < len(bs) {
				round = append(round, bs[k])
			}
		}
		if len(round) == 0 {
			return rounds
		}
		rounds = append(rounds, round)
	}
}

// fits says whether a record of size fits the last of bs (a batch with
// no record takes any).
func fits(bs []chunk, size int) bool {
	if len(bs) == 0 {
		return true
	}
	last := bs[len(bs)-1]
	return len(last.recs) == 0 || batchHeader+last.size+size <= maxBatchBytes
}

// leastFilled is the partition with the fewest bytes, looking from start.
func leastFilled(bytes []int, start int) int {
	best := start
	for i := range bytes {
		p := (start + i) % len(bytes)
		if bytes[p] < bytes[best] {
			best = p
		}
	}
	return best
}
