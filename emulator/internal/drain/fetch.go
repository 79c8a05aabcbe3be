package drain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Per-request caps of the shared fetch.
const (
	fetchMaxBytes     = 50 << 20
	fetchPartMaxBytes = 512 << 10
)

var decompressor = kgo.DefaultDecompressor()

func (p *Pool) run(ctx context.Context) {
	wait := fetchWait
	for ctx.Err() == nil {
		p.mu.Lock()
		ws := make([]*want, 0, len(p.wants))
		for w := range p.wants {
			ws = append(ws, w)
		}
		p.mu.Unlock()
		if len(ws) == 0 {
			select {
			case <-p.wake:
			case <-ctx.Done():
			}
			continue
		}
		began := time.Now()
		round := roundWait(ws, wait)
		answered := p.fetchFor(ctx, ws, round)
		took := time.Since(began)
		switch {
		case answered > 0 || round == 0: // a round that was not to wait
			wait = fetchWait
		case took < fetchWait/4:
			select { // nothing for anyone, at once (an error): do not spin
			case <-time.After(50 * time.Millisecond):
			case <-ctx.Done():
			}
		case took >= wait/2: // the broker waited: nothing is flowing
			wait = min(2*wait, idleFetchWait)
		}
	}
}

// roundWait is how long a round for ws waits on the broker: not at all
// when one of them asks for what the log holds now.
func roundWait(ws []*want, wait time.Duration) time.Duration {
	for _, w := range ws {
		if w.now {
			return 0
		}
	}
	return wait
}

// fetchFor fetches once for the waiting wants, the broker waiting up to
// wait for records, and answers the wants it has records or an error for;
// it returns how many it answered.
func (p *Pool) fetchFor(ctx context.Context, ws []*want, wait time.Duration) int {
	// Per partition, the lowest position asked: every want at or past it
	// can be served from one read.
	low := map[string]map[int32]int64{}
	for _, w := range ws {
		if low[w.topic] == nil {
			low[w.topic] = map[int32]int64{}
		}
		for part, o := range w.from {
			if cur, ok := low[w.topic][part]; !ok || o < cur {
				low[w.topic][part] = o
			}
		}
	}
	reqs := map[int32]*kmsg.FetchRequest{}
	topicAt := map[int32]map[string]int{} // leader → topic → index in its request
	failed := map[string]error{}
	for topic, parts := range low {
		leaders, err := p.leadersOf(ctx, topic)
		if err != nil {
			failed[topic] = err
			continue
		}
		for part, o := range parts {
			leader, ok := leaders[part]
			if !ok {
				failed[topic] = fmt.Errorf("topic %s has no partition %d", topic, part)
				continue
			}
			addPartition(reqs, topicAt, wait, leader, topic, part, o)
		}
	}
	got, errs := p.send(ctx, reqs, low)
	for t, err := range failed {
		errs[t] = err
	}
	p.noteReads(low, errs)
	return p.answer(ws, low, got, errs)
}

// addPartition adds a partition to the request for its leader; topicAt
// indexes each request's topics (a scan of them made a fetch over many
// topics quadratic).
func addPartition(reqs map[int32]*kmsg.FetchRequest, topicAt map[int32]map[string]int, wait time.Duration, leader int32, topic string, part int32, offset int64) {
	req := reqs[leader]
	if req == nil {
		req = kmsg.NewPtrFetchRequest()
		req.MaxWaitMillis = int32(wait / time.Millisecond)
		req.MinBytes = 1
		req.MaxBytes = fetchMaxBytes
		req.IsolationLevel = 0 // read uncommitted, as the drains always read
		reqs[leader] = req
		topicAt[leader] = map[string]int{}
	}
	i, ok := topicAt[leader][topic]
	if !ok {
		i = len(req.Topics)
		topicAt[leader][topic] = i
		req.Topics = append(req.Topics, kmsg.NewFetchRequestTopic())
		req.Topics[i].Topic = topic
	}
	rt := &req.Topics[i]
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = part, offset, fetchPartMaxBytes
	rt.Partitions = append(rt.Partitions, rp)
}

// send issues the fetches, one per leader at once, and decodes the records.
func (p *Pool) send(ctx context.Context, reqs map[int32]*kmsg.FetchRequest, low map[string]map[int32]int64) (map[string]map[int32][]*kgo.Record, map[string]error) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	got, errs := map[string]map[int32][]*kgo.Record{}, map[string]error{}
	for leader, req := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := p.cl.Broker(int(leader)).Request(ctx, req)
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				err = kerr.ErrorForCode(resp.(*kmsg.FetchResponse).ErrorCode)
			}
			if err != nil {
				for _, t := range req.Topics {
					errs[t.Topic] = err
					p.forget(t.Topic)
				}
				return
			}
			for _, t := range resp.(*kmsg.FetchResponse).Topics {
				for i := range t.Partitions {
					rp := &t.Partitions[i]
					fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
						Topic: t.Topic, Partition: rp.Partition, Offset: low[t.Topic][rp.Partition], IsolationLevel: kgo.ReadUncommitted(),
					}, rp, decompressor, nil)
					if fp.Err != nil {
						if !errors.Is(fp.Err, kerr.OffsetOutOfRange) {
							p.forget(t.Topic) // a moved leader, a topic re-created: look again
						}
						errs[t.Topic] = fmt.Errorf("fetch %s/%d: %w", t.Topic, rp.Partition, fp.Err)
						continue
					}
					if got[t.Topic] == nil {
						got[t.Topic] = map[int32][]*kgo.Record{}
					}
					got[t.Topic][rp.Partition] = fp.Records
				}
			}
		}()
	}
	wg.Wait()
	return got, errs
}

// answer hands each standing want the records at or past its positions
// (only from partitions read from at or before them, so nothing is
// skipped), or its topic's error; it returns how many it answered. Wants
// made while the fetch was out are answered too when it covers them (a
// drain that asked again after its tick), so they need no round of their
// own. A want for what the log holds now (now) that was in the round
// (ws) is answered even with no records.
func (p *Pool) answer(ws []*want, low map[string]map[int32]int64, got map[string]map[int32][]*kgo.Record, errs map[string]error) int {
	n := 0
	p.mu.Lock()
	defer p.mu.Unlock()
	for w := range p.wants {
		if _, ok := low[w.topic]; !ok {
			continue // not in this round
		}
		var f fetched
		var runs [][]*kgo.Record
		for part, from := range w.from {
			if at, ok := low[w.topic][part]; !ok || at > from {
				continue
			}
			rs := got[w.topic][part]
			i := sort.Search(len(rs), func(i int) bool { return rs[i].Offset >= from })
			if i < len(rs) {
				runs = append(runs, rs[i:])
			}
		}
		f.records = join(runs)
		if len(f.records) == 0 {
			f.err = errs[w.topic]
		}
		if len(f.records) == 0 && f.err == nil && !(w.now && slices.Contains(ws, w)) {
			continue
		}
		delete(p.wants, w)
		w.ch <- f
		n++
	}
	return n
}

// join returns the runs as one slice: the run itself when there is one
// (capped, so that appending to it cannot reach records past it), else a
// copy of them all, allocated once.
func join(runs [][]*kgo.Record) []*kgo.Record {
	switch len(runs) {
	case 0:
		return nil
	case 1:
		return runs[0][:len(runs[0]):len(runs[0])]
	}
	n := 0
	for _, rs := range runs {
		n += len(rs)
	}
	out := make([]*kgo.Record, 0, n)
	for _, rs := range runs {
		out = append(out, rs...)
	}
	return out
}

// leadersOf returns the leader of each partition of topic.
func (p *Pool) leadersOf(ctx context.Context, topic string) (map[int32]int32, error) {
	p.mu.Lock()
	l, ok := p.leaders[topic]
	p.mu.Unlock()
	if ok {
		return l, nil
	}
	md, err := p.adm.Metadata(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("read metadata of %s: %w", topic, err)
	}
	td, ok := md.Topics[topic]
	if !ok || td.Err != nil {
		return nil, fmt.Errorf("read metadata of %s: %w", topic, errors.Join(td.Err, kerr.UnknownTopicOrPartition))
	}
	l = map[int32]int32{}
	for part, pd := range td.Partitions {
		if pd.Err == nil && pd.Leader >= 0 {
			l[part] = pd.Leader
		}
	}
	p.mu.Lock()
	p.leaders[topic] = l
	p.mu.Unlock()
	return l, nil
}

func (p *Pool) forget(topic string) {
	p.mu.Lock()
	delete(p.leaders, topic)
	p.mu.Unlock()
}
