package broker

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// listOffsets returns the start and end offsets of every partition of
// topic. It asks each partition leader directly, both at once, on cl; on
// any trouble (a partition without a leader, an error code) it asks again
// through the admin client, which retries and words the errors.
func (b *Broker) listOffsets(ctx context.Context, cl *kgo.Client, topic string) (starts, ends kadm.ListedOffsets, err error) {
	if starts, ends, ok := b.listOffsetsDirect(ctx, cl, topic); ok {
		return starts, ends, nil
	}
	b.leaders.Delete(topic) // a leader moved, or the topic changed: ask again next time
	return b.listOffsetsAdmin(ctx, topic)
}

// listOffsetsAdmin lists the offsets through the admin client.
func (b *Broker) listOffsetsAdmin(ctx context.Context, topic string) (starts, ends kadm.ListedOffsets, err error) {
	var startErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		starts, startErr = b.admin.ListStartOffsets(ctx, topic)
		if startErr == nil {
			startErr = starts.Error()
		}
	}()
	ends, err = b.admin.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	<-done
	if startErr != nil {
		return nil, nil, fmt.Errorf("list start offsets: %w", startErr)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list end offsets: %w", err)
	}
	return starts, ends, nil
}

// listAnswer is one leader's answer to one ListOffsets request.
type listAnswer struct {
	into kadm.ListedOffsets
	resp *kmsg.ListOffsetsResponse
	err  error
}

// listOffsetsDirect sends the earliest and the latest ListOffsets
// requests to every leader of the topic's partitions at once; ok is false
// unless every partition answered both without error.
func (b *Broker) listOffsetsDirect(ctx context.Context, cl *kgo.Client, topic string) (starts, ends kadm.ListedOffsets, ok bool) {
	leaders, ok := b.leadersOf(ctx, cl, topic)
	if !ok {
		return nil, nil, false
	}
	byLeader := map[int32][]int32{}
	for p, leader := range leaders {
		byLeader[leader] = append(byLeader[leader], p)
	}
	starts, ends = kadm.ListedOffsets{topic: {}}, kadm.ListedOffsets{topic: {}}
	answers := make(chan listAnswer, 2*len(byLeader))
	for leader, parts := range byLeader {
		for _, ask := range []struct {
			into kadm.ListedOffsets
			ts   int64
		}{{starts, Earliest}, {ends, Latest}} {
			go func() {
				resp, err := listRequest(topic, parts, ask.ts).RequestWith(ctx, cl.Broker(int(leader)))
				answers <- listAnswer{into: ask.into, resp: resp, err: err}
			}()
		}
	}
	ok = true
	for range 2 * len(byLeader) {
		a := <-answers
		ok = ok && a.err == nil && keepListed(a.into, topic, a.resp)
	}
	return starts, ends, ok && len(starts[topic]) == len(leaders) && len(ends[topic]) == len(leaders)
}

// leadersOf returns the leader of each partition of topic: as the last
// Metadata answer gave them, or as a Metadata request on cl gives them now.
// Topics are never given more partitions here, and listOffsets forgets a
// topic's leaders on any trouble, so a moved leader costs one fallback.
func (b *Broker) leadersOf(ctx context.Context, cl *kgo.Client, topic string) (map[int32]int32, bool) {
	if l, ok := b.leaders.Load(topic); ok {
		return l.(map[int32]int32), true
	}
	meta, err := kadm.NewClient(cl).Metadata(ctx, topic)
	if err != nil {
		return nil, false
	}
	td, found := meta.Topics[topic]
	if !found || td.Err != nil || len(td.Partitions) == 0 {
		return nil, false
	}
	leaders := make(map[int32]int32, len(td.Partitions))
	for p, pd := range td.Partitions {
		if pd.Leader < 0 || pd.Err != nil {
			return nil, false
		}
		leaders[p] = pd.Leader
	}
	b.leaders.Store(topic, leaders)
	return leaders, true
}

// listRequest asks for the offset at timestamp ts (Earliest or Latest) of
// parts, as a consumer that reads uncommitted records does.
func listRequest(topic string, parts []int32, ts int64) *kmsg.ListOffsetsRequest {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	for _, p := range parts {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition = p
		rp.CurrentLeaderEpoch = -1
		rp.Timestamp = ts
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	return req
}

// keepListed puts the partitions of resp into into; false on an error code.
func keepListed(into kadm.ListedOffsets, topic string, resp *kmsg.ListOffsetsResponse) bool {
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if t.Topic != topic || p.ErrorCode != 0 {
				return false
			}
			into[topic][p.Partition] = kadm.ListedOffset{
				Topic: topic, Partition: p.Partition, Timestamp: p.Timestamp,
				Offset: p.Offset, LeaderEpoch: p.LeaderEpoch,
			}
		}
	}
	return true
}
