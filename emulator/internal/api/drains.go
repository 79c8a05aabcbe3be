package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/drain"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// writers build the row writer of each destination type.
var writers = map[string]func(a *API, d store.Destination) (rowWriter, error){}

// deliveryTimeout bounds how long a produce waits for its destinations.
const deliveryTimeout = 30 * time.Second

// StartDrains starts a drain for every stored destination; the server calls
// it once at start-up. A destination that cannot start does not stop the
// others or the server: it comes up Failed, with its error in the topology,
// and can be deleted, updated or resumed (which tries again).
func (a *API) StartDrains(ctx context.Context) error {
	if !a.cfg.Broker.Enabled() {
		return nil
	}
	ds, err := a.cfg.Store.ListDestinations(ctx, "")
	if err != nil {
		return err
	}
	for _, d := range ds {
		if err := a.startDrain(ctx, d); err != nil {
			a.cfg.Logger.Error("destination failed to start; it stays Failed until resumed, updated or deleted",
				"destination", d.ID, "eventstream", d.EventstreamID, "err", err)
		}
	}
	return nil
}

// startDrain starts delivering d (nothing to do without a broker: the
// drain starts with the next server that has one). A destination that
// cannot start is left Failed with the error, which is also returned.
func (a *API) startDrain(ctx context.Context, d store.Destination) error {
	if !a.cfg.Broker.Enabled() {
		return nil
	}
	// The old drain (if any) stops before the new one reads the journal.
	if err := a.stopDrain(d.ID); err != nil {
		return err
	}
	err := a.launchDrain(ctx, d)
	if err == nil {
		return nil
	}
	var fe *fabricerr.Error
	if !errors.As(err, &fe) {
		fe = fabricerr.New(http.StatusBadGateway, "DestinationFailed", "%s could not start: %v", describe(d), err).WithResource(d.ID, "Destination")
	}
	a.drainsMu.Lock()
	a.drains[d.ID] = drain.Failed(fmt.Errorf("start the destination: %w", err))
	a.drainsMu.Unlock()
	return fe
}

// launchDrain builds d's sink and starts its drain.
func (a *API) launchDrain(ctx context.Context, d store.Destination) error {
	es, props, err := eventstream.Load(ctx, a.cfg.Store, d.EventstreamID)
	if err != nil {
		return err
	}
	if props.IsPaused(d.ID) {
		return nil // paused: resume starts it
	}
	mk, ok := writers[d.Type]
	if !ok {
		return fabricerr.BadParameter("type", "%s destinations are not available in this build", d.Type)
	}
	w, err := mk(a, d)
	if err != nil {
		return err
	}
	spec, err := eventstream.SpecOf(d)
	if err != nil {
		return err
	}
	ops, err := props.Pipeline()
	if spec.OwnOperators {
		ops, err = eventstream.ParseOperators(spec.Operators)
	}
	if err != nil {
		return err
	}
	sink, err := newProcessor(ctx, a.cfg.Store, d.ID, ops, w, a.rejectionsOf(d.ID), a.cfg.Logger.With("destination", d.ID))
	if err != nil {
		return err
	}
	streams := props.Streams
	if len(streams) == 0 {
		return fmt.Errorf("eventstream %s has no stream", es.ID)
	}
	if err := a.cfg.Broker.EnsureTopic(ctx, streams[0].Topic); err != nil {
		return kafkaError(err)
	}
	pool, err := a.drainPool()
	if err != nil {
		return kafkaError(err)
	}
	dr, err := drain.Start(ctx, drain.Config{
		Topic: streams[0].Topic, Group: drainGroup(d.ID), Pool: pool,
		Sink: sink, Logger: a.cfg.Logger.With("destination", d.ID),
	})
	if resume := (*drain.ResumeError)(nil); errors.As(err, &resume) {
		return err // the destination's own state, not Kafka
	} else if err != nil {
		return kafkaError(err)
	}
	a.drainsMu.Lock()
	a.drains[d.ID] = dr
	a.drainsMu.Unlock()
	return nil
}

// drainGroup is the consumer group a destination's drain commits to.
func drainGroup(destID string) string { return eventstream.DrainGroup(destID) }

func (a *API) stopDrain(id string) error {
	a.drainsMu.Lock()
	dr := a.drains[id]
	delete(a.drains, id)
	a.drainsMu.Unlock()
	if dr != nil {
		return dr.Close()
	}
	return nil
}

// stopDrainsOf stops the drains that read from or write to item id.
func (a *API) stopDrainsOf(ctx context.Context, itemID string) error {
	from, err := a.cfg.Store.ListDestinations(ctx, itemID)
	if err != nil {
		return err
	}
	to, err := a.cfg.Store.ListDestinationsOfItem(ctx, itemID)
	if err != nil {
		return err
	}
	for _, d := range append(from, to...) {
		if err := a.stopDrain(d.ID); err != nil {
			return err
		}
	}
	return nil
}

func (a *API) drainStatus(id string) (drain.Status, bool) {
	a.drainsMu.Lock()
	dr := a.drains[id]
	a.drainsMu.Unlock()
	if dr == nil {
		return drain.Status{}, false
	}
	return dr.Status(), true
}

// startFailed reports whether destination id is Failed because it could
// not start (resuming it tries again).
func (a *API) startFailed(id string) bool {
	st, ok := a.drainStatus(id)
	return ok && st.StartErr != nil
}

// drainPool returns the Kafka connections every drain shares, connecting
// on first use.
func (a *API) drainPool() (*drain.Pool, error) {
	a.drainsMu.Lock()
	defer a.drainsMu.Unlock()
	if a.pool == nil {
		p, err := drain.NewPool(a.cfg.Broker.Bootstrap(), a.cfg.Logger)
		if err != nil {
			return nil, err
		}
		a.pool = p
	}
	return a.pool, nil
}

// CloseDrains stops every drain, then closes the Kafka connections and the
// Kusto client they shared. It gives up waiting when ctx ends (a write or a
// client that hangs), leaving what is left to the process's exit.
func (a *API) CloseDrains(ctx context.Context) error {
	a.drainsMu.Lock()
	ds, pool := a.drains, a.pool
	a.drains, a.pool = map[string]*drain.Drain{}, nil
	a.drainsMu.Unlock()
	var wg sync.WaitGroup
	for _, d := range ds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.Close()
		}()
	}
	stopped := make(chan struct{})
	go func() {
		wg.Wait()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-ctx.Done():
		return fmt.Errorf("stop destinations: %w", ctx.Err())
	}
	var err error
	if pool != nil {
		err = pool.Close(ctx)
	}
	if a.kustoClient != nil {
		_ = a.kustoClient.Close()
	}
	return err
}

// awaitDestinations waits until every destination of the Eventstream has
// delivered past the produced positions (read-your-writes for tests). A
// failing destination answers 502 naming it; the events stay in Kafka and
// are delivered when it recovers.
func (a *API) awaitDestinations(ctx context.Context, eventstreamID string, pos []broker.Position) error {
	ds, err := a.cfg.Store.ListDestinations(ctx, eventstreamID)
	if err != nil || len(ds) == 0 {
		return err
	}
	last := map[int32]int64{}
	for _, p := range pos {
		last[p.Partition] = max(last[p.Partition], p.Offset)
	}
	ctx, cancel := context.WithTimeout(ctx, deliveryTimeout)
	defer cancel()
	for _, d := range ds {
		a.drainsMu.Lock()
		dr := a.drains[d.ID]
		a.drainsMu.Unlock()
		if dr == nil {
			continue
		}
		err := dr.WaitPast(ctx, last)
		switch {
		case err == nil, errors.Is(err, drain.ErrClosed): // unbound meanwhile
		case errors.Is(err, context.DeadlineExceeded):
			return fabricerr.New(http.StatusGatewayTimeout, "DestinationTimeout",
				"%d events were written to Kafka, but %s has not delivered them within %s; they stay in Kafka and will be delivered",
				len(pos), describe(d), deliveryTimeout).WithResource(d.ID, "Destination")
		default:
			return fabricerr.New(http.StatusBadGateway, "DestinationFailed",
				"%d events were written to Kafka, but %s failed: %v; they stay in Kafka and will be delivered when it recovers",
				len(pos), describe(d), err).WithResource(d.ID, "Destination")
		}
	}
	return nil
}

func describe(d store.Destination) string {
	if internal(d) {
		spec, _ := eventstream.SpecOf(d) // a spec that does not decode names no stream
		return fmt.Sprintf("the DerivedStream %q (%s, topic %s)", spec.Name, d.Target, eventstream.DerivedTopic(d.EventstreamID, d.Target))
	}
	s := fmt.Sprintf("the %s destination %s (item %s", d.Type, d.ID, d.ItemID)
	if d.Target != "" {
		s += ", table " + d.Target
	}
	return s + ")"
}
