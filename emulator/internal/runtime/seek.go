package runtime

import (
	"context"
	"errors"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Start types of a resume.
const (
	StartNow             = "Now"
	StartWhenLastStopped = "WhenLastStopped"
	StartCustomTime      = "CustomTime"
)

// Seek makes the next Sync restart destination d (paused, or Failed to
// start) reading from startType: WhenLastStopped reads on from its
// journal; Now and CustomTime (from at) move the journal's offsets (and
// the drain's group) to the topic's end or to the first offsets at or
// after at. Moving drops the operators' open windows. d's drain must not
// run meanwhile.
func (rt *Runtime) Seek(ctx context.Context, props eventstream.Model, d store.Destination, startType string, at time.Time) error {
	if !rt.cfg.Broker.Enabled() {
		return nil
	}
	rt.drainsMu.Lock()
	rt.reset[d.ID] = true
	rt.drainsMu.Unlock()
	topic := props.Default().Topic
	if startType == StartWhenLastStopped || topic == "" {
		return nil
	}
	if err := rt.cfg.Broker.EnsureTopic(ctx, topic); err != nil {
		return KafkaError(err)
	}
	var offs map[int32]int64
	var err error
	if startType == StartNow {
		offs, err = rt.cfg.Broker.EndOffsets(ctx, topic)
	} else {
		offs, err = rt.cfg.Broker.OffsetsAfter(ctx, topic, at)
	}
	if err != nil {
		return KafkaError(err)
	}
	j, err := rt.cfg.Store.GetJournal(ctx, d.ID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	// A batch still pending is from before the new start: it goes too.
	j.DestinationID, j.Offsets, j.State, j.Pending = d.ID, offs, nil, nil
	if err := rt.cfg.Store.PutJournal(ctx, j); err != nil {
		return err
	}
	if err := rt.cfg.Broker.CommitGroupOffsets(ctx, eventstream.DrainGroup(d.ID), topic, offs); err != nil {
		return KafkaError(err)
	}
	return nil
}
