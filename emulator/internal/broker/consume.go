package broker

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Special offsets, as Spark's JSON offset form spells them.
const (
	Earliest int64 = -2
	Latest   int64 = -1
)

// Range asks for the records of a topic between two positions.
type Range struct {
	// Start maps a partition to its first offset (or Earliest/Latest);
	// partitions not in the map start at DefaultStart.
	Start        map[int32]int64
	DefaultStart int64
	// End maps a partition to the offset to stop before (or Latest, the high
	// watermark when the read starts); partitions not in the map end at
	// DefaultEnd.
	End        map[int32]int64
	DefaultEnd int64
	// MaxRecords caps the answer; 0 means no cap.
	MaxRecords int
	// PartitionBytes caps what one Fetch takes of a partition (0: 16 MiB).
	// A reader of a few records a call sets it small, so that each call
	// decodes about what it keeps rather than the whole partition; the
	// broker still answers at least one record batch, whatever its size.
	PartitionBytes int32
	// Timeout bounds the wait for records that are not there yet (an End
	// beyond the high watermark). The read returns as soon as the range is read.
	Timeout time.Duration
}

// Batch is the answer to Consume.
type Batch struct {
	// Records are ordered by partition, then offset.
	Records []*kgo.Record
	// Next is, per partition, the offset to start the following read at.
	Next map[int32]int64
	// Complete is false when MaxRecords or Timeout cut the range short.
	Complete bool
}

// UnknownPartitionError is returned when a Range names a partition the topic lacks.
type UnknownPartitionError struct {
	Topic     string
	Partition int32
}

func (e *UnknownPartitionError) Error() string {
	return fmt.Sprintf("topic %s has no partition %d", e.Topic, e.Partition)
}

// Consume reads the records of topic in r from every partition.
func (b *Broker) Consume(ctx context.Context, topic string, r Range) (*Batch, error) {
	if !b.Enabled() {
		return nil, ErrNoBroker
	}
	if err := b.EnsureTopic(ctx, topic); err != nil {
		return nil, err
	}
	cl, err := b.fetchers.get(ctx)
	if err != nil {
		return nil, err
	}
	defer b.fetchers.put(cl)
	starts, ends, err := b.listOffsets(ctx, cl, topic)
	if err != nil {
		return nil, err
	}
	for _, m := range []map[int32]int64{r.Start, r.End} {
		for p := range m {
			if _, ok := ends.Lookup(topic, p); !ok {
				return nil, &UnknownPartitionError{Topic: topic, Partition: p}
			}
		}
	}

	batch := &Batch{Next: map[int32]int64{}, Complete: true}
	from, stop := planRange(topic, r, starts, ends, batch.Next)
	if len(from) == 0 {
		return batch, nil
	}
	per, n, err := fetchRange(ctx, cl, topic, r, from, stop, batch)
	if err != nil {
		return nil, err
	}
	batch.Records = inPartitionOrder(per, n)
	return batch, nil
}

// planRange resolves r against the partitions' offsets: from is where each
// partition with records to read starts, stop the offset it ends before.
// next gets every partition's start, the offset a read of nothing resumes at.
func planRange(topic string, r Range, starts, ends kadm.ListedOffsets, next map[int32]int64) (
	from, stop map[int32]int64,
) {
	from = map[int32]int64{}
	stop = map[int32]int64{}
	ends.Each(func(lo kadm.ListedOffset) {
		p := lo.Partition
		low, _ := starts.Lookup(topic, p)
		resolve := func(o int64) int64 {
			switch o {
			case Earliest:
				return low.Offset
			case Latest:
				return lo.Offset
			}
			return o
		}
		s, ok := r.Start[p]
		if !ok {
			s = r.DefaultStart
		}
		s = max(resolve(s), low.Offset)
		e, ok := r.End[p]
		if !ok {
			e = r.DefaultEnd
		}
		e = resolve(e)
		next[p] = s
		if s < e {
			from[p] = s
			stop[p] = e
		}
	})
	return from, stop
}

// inPartitionOrder lists the n records of per by partition, then offset.
func inPartitionOrder(per map[int32][]*kgo.Record, n int) []*kgo.Record {
	parts := make([]int32, 0, len(per))
	for p := range per {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	records := make([]*kgo.Record, 0, n)
	for _, p := range parts {
		records = append(records, per[p]...)
	}
	return records
}

// LastRecord returns the last record of one partition of topic, or nil
// when the partition holds none.
func (b *Broker) LastRecord(ctx context.Context, topic string, partition int32) (*kgo.Record, error) {
	if !b.Enabled() {
		return nil, ErrNoBroker
	}
	ends, err := b.EndOffsets(ctx, topic)
	if err != nil {
		return nil, err
	}
	end, ok := ends[partition]
	if !ok {
		return nil, &UnknownPartitionError{Topic: topic, Partition: partition}
	}
	if end <= 0 {
		return nil, nil
	}
	batch, err := b.Consume(ctx, topic, Range{
		Start: map[int32]int64{partition: end - 1}, DefaultStart: Latest,
		End: map[int32]int64{partition: end}, DefaultEnd: Latest,
		Timeout: 10 * time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("read last record of %s/%d: %w", topic, partition, err)
	}
	if !batch.Complete {
		return nil, fmt.Errorf("read last record of %s/%d: offset %d not read within 10s", topic, partition, end-1)
	}
	if len(batch.Records) == 0 {
		return nil, nil // removed by retention
	}
	return batch.Records[len(batch.Records)-1], nil
}
