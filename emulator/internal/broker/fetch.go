package broker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Fetch sizes and waits of the consume route's direct fetches, the same as
// the per-call consumer used before them.
const (
	fetchMaxWait           = 250 * time.Millisecond
	fetchMaxBytes          = 64 << 20
	fetchMaxPartitionBytes = 16 << 20
	fetchPoolIdle          = 8 // idle fetch clients kept for the next read
)

// fetchRange reads the records from the partitions' from offsets up to their
// stop offsets, r.MaxRecords at most and waiting r.Timeout at most, advancing
// batch.Next and clearing batch.Complete when the range is cut short. It
// sends Fetch requests straight to each partition's leader on cl, a pooled
// client, and returns the records per partition and their count.
func fetchRange(ctx context.Context, cl *kgo.Client, topic string, r Range,
	from, stop map[int32]int64, batch *Batch,
) (map[int32][]*kgo.Record, int, error) {
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	rd := &rangeRead{cl: cl, admin: kadm.NewClient(cl), topic: topic, r: r, at: from, stop: stop,
		batch: batch, per: map[int32][]*kgo.Record{}}
	for len(stop) > 0 && !rd.capped {
		if err := rd.round(ctx); err != nil {
			if ctx.Err() != nil {
				batch.Complete = false
				break
			}
			return nil, 0, fmt.Errorf("fetch %s: %w", topic, err)
		}
	}
	if rd.capped {
		batch.Complete = len(stop) == 0
	}
	return rd.per, rd.n, nil
}

// rangeRead is the state of one fetchRange.
type rangeRead struct {
	cl      *kgo.Client
	admin   *kadm.Client
	topic   string
	r       Range
	at      map[int32]int64 // next offset to fetch, per open partition
	stop    map[int32]int64 // offset to stop before, per open partition
	batch   *Batch
	per     map[int32][]*kgo.Record
	n       int
	capped  bool
	refresh bool // leaders moved: read metadata afresh before the next round
}

// round sends one Fetch to every leader of an open partition and takes
// what comes back.
func (rd *rangeRead) round(ctx context.Context) error {
	if rd.refresh {
		rd.cl.ForceMetadataRefresh()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	meta, err := rd.admin.Metadata(ctx, rd.topic)
	if err != nil {
		return fmt.Errorf("read metadata: %w", err)
	}
	td, ok := meta.Topics[rd.topic]
	if !ok || td.Err != nil {
		return fmt.Errorf("read metadata: %w", errors.Join(td.Err, kerr.UnknownTopicOrPartition))
	}
	rd.refresh = false
	byLeader := map[int32][]int32{}
	for p := range rd.stop {
		pd, ok := td.Partitions[p]
		if !ok || pd.Leader < 0 {
			rd.refresh = true
			continue
		}
		byLeader[pd.Leader] = append(byLeader[pd.Leader], p)
	}
	for leader, parts := range byLeader {
		resp, err := rd.fetch(ctx, leader, td.ID, parts)
		if err != nil {
			return err
		}
		if err := rd.take(resp); err != nil {
			return err
		}
		if rd.capped {
			break
		}
	}
	return nil
}

// fetch sends one Fetch request for parts to leader.
func (rd *rangeRead) fetch(ctx context.Context, leader int32, id kadm.TopicID, parts []int32) (*kmsg.FetchResponse, error) {
	wait := fetchMaxWait
	if dl, ok := ctx.Deadline(); ok {
		wait = max(0, min(wait, time.Until(dl)))
	}
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = int32(wait.Milliseconds())
	req.MinBytes = 1
	req.MaxBytes = fetchMaxBytes
	req.SessionEpoch = -1 // no fetch session
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic, rt.TopicID = rd.topic, id
	for _, p := range parts {
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition = p
		rp.FetchOffset = rd.at[p]
		rp.CurrentLeaderEpoch = -1
		rp.LogStartOffset = -1
		rp.PartitionMaxBytes = fetchMaxPartitionBytes
		if rd.r.PartitionBytes > 0 {
			rp.PartitionMaxBytes = rd.r.PartitionBytes
		}
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, rd.cl.Broker(int(leader)))
	if err != nil {
		return nil, err
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, err
	}
	return resp, nil
}

// take keeps the records of one Fetch answer that fall in the range.
func (rd *rangeRead) take(resp *kmsg.FetchResponse) error {
	for i := range resp.Topics {
		for j := range resp.Topics[i].Partitions {
			rp := &resp.Topics[i].Partitions[j]
			end, open := rd.stop[rp.Partition]
			if !open {
				continue
			}
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				if kerr.IsRetriable(err) || errors.Is(err, kerr.UnknownTopicOrPartition) {
					rd.refresh = true
					continue
				}
				return fmt.Errorf("partition %d: %w", rp.Partition, err)
			}
			fp, next := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
				Offset: rd.at[rp.Partition], Topic: rd.topic, Partition: rp.Partition, Pools: fetchPools,
			}, rp, fetchDecompress, nil)
			if fp.Err != nil {
				recycle(fp.Records)
				return fmt.Errorf("partition %d: %w", rp.Partition, fp.Err)
			}
			recycle(fp.Records[rd.keep(fp.Records, end):])
			if rd.capped {
				return nil
			}
			if next > rd.at[rp.Partition] {
				rd.at[rp.Partition] = next
				// Past what the fetch read (control records too), not
				// past the range.
				rd.batch.Next[rp.Partition] = min(next, end)
			}
			if rd.at[rp.Partition] >= end {
				delete(rd.stop, rp.Partition)
			}
		}
	}
	return nil
}

// keep appends the records before end, up to the range's record cap, and
// returns how many of recs, from the first, it kept.
func (rd *rangeRead) keep(recs []*kgo.Record, end int64) int {
	for i, rec := range recs {
		if rec.Offset >= end {
			return i
		}
		rd.per[rec.Partition] = append(rd.per[rec.Partition], rec)
		rd.batch.Next[rec.Partition] = rec.Offset + 1
		rd.n++
		if rec.Offset+1 >= end {
			delete(rd.stop, rec.Partition)
		}
		if rd.r.MaxRecords > 0 && rd.n >= rd.r.MaxRecords {
			rd.capped = true
			return i + 1
		}
	}
	return len(recs)
}

// recycle gives back the pooled memory of records no batch keeps.
func recycle(recs []*kgo.Record) {
	for _, r := range recs {
		r.Recycle()
	}
}
