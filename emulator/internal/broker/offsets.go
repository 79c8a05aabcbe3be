package broker

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// EndOffsets returns, per partition, the offset the next record of topic
// will get (the high watermark).
func (b *Broker) EndOffsets(ctx context.Context, topic string) (map[int32]int64, error) {
	if !b.Enabled() {
		return nil, ErrNoBroker
	}
	ends, err := b.admin.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("list end offsets of %s: %w", topic, err)
	}
	return listed(ends, topic), nil
}

// OffsetsAfter returns, per partition, the first offset whose timestamp is
// at or after t; a partition with no such record gives its end offset.
func (b *Broker) OffsetsAfter(ctx context.Context, topic string, t time.Time) (map[int32]int64, error) {
	if !b.Enabled() {
		return nil, ErrNoBroker
	}
	ends, err := b.EndOffsets(ctx, topic)
	if err != nil {
		return nil, err
	}
	at, err := b.admin.ListOffsetsAfterMilli(ctx, t.UnixMilli(), topic)
	if err == nil {
		err = at.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("list offsets of %s after %s: %w", topic, t.Format(time.RFC3339), err)
	}
	out := listed(at, topic)
	for p, end := range ends {
		if o, ok := out[p]; !ok || o < 0 || o > end {
			out[p] = end
		}
	}
	return out, nil
}

// CommitGroupOffsets sets the committed offsets of group on topic (the next
// offset to read per partition). The group must have no active members.
func (b *Broker) CommitGroupOffsets(ctx context.Context, group, topic string, offsets map[int32]int64) error {
	if !b.Enabled() {
		return ErrNoBroker
	}
	offs := kadm.Offsets{}
	for p, o := range offsets {
		offs.AddOffset(topic, p, o, -1)
	}
	err := Retrying(ctx, func() error {
		resp, err := b.admin.CommitOffsets(ctx, group, offs)
		if err == nil {
			err = resp.Error()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("commit offsets of group %s: %w", group, err)
	}
	return nil
}

func listed(l kadm.ListedOffsets, topic string) map[int32]int64 {
	out := map[int32]int64{}
	l.Each(func(o kadm.ListedOffset) {
		if o.Topic == topic && o.Partition >= 0 {
			out[o.Partition] = o.Offset
		}
	})
	return out
}
