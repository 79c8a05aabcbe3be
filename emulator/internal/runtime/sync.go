package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Sync makes what runs for Eventstream esID match its stored model: a drain
// per unpaused destination, restarted when its binding, topic or operators
// changed (or Seek asked for it), stopped when paused or gone; and a runner
// per unpaused SampleData or Kafka-protocol source. A destination that
// cannot start is left Failed (its error shows in DrainStatus) and Sync
// returns the first such error; the others still start. An Eventstream
// that is gone has nothing running afterwards. Without a broker nothing
// runs: the drains start with the next server that has one.
func (rt *Runtime) Sync(ctx context.Context, esID string) error {
	errs, err := rt.syncDrains(ctx, esID)
	rt.syncSources(esID)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return errs[0].err
	}
	return nil
}

// destError is why destination id failed to start.
type destError struct {
	id  string
	err error
}

func (rt *Runtime) syncDrains(ctx context.Context, esID string) ([]destError, error) {
	if !rt.cfg.Broker.Enabled() || rt.isClosed() {
		return nil, nil
	}
	es, props, err := eventstream.Load(ctx, rt.cfg.Store, esID)
	var dests []store.Destination
	switch {
	case errors.Is(err, store.ErrNotFound) || err == nil && es.Type != eventstream.ItemType:
	case err != nil:
		return nil, err
	default:
		if dests, err = rt.cfg.Store.ListDestinations(ctx, esID); err != nil {
			return nil, err
		}
	}
	want := map[string]bool{}
	var errs []destError
	for _, d := range dests {
		want[d.ID] = true
		if props.IsPaused(d.ID) {
			err = rt.stopDrain(d.ID) // paused: resume starts it
		} else if !rt.current(d.ID, fingerprint(props, d)) {
			err = rt.startDrain(ctx, props, d)
		}
		if err != nil {
			errs = append(errs, destError{d.ID, err})
		}
	}
	for _, id := range rt.drainIDsOf(esID) {
		if !want[id] {
			if err := rt.stopDrain(id); err != nil {
				errs = append(errs, destError{id, err})
			}
		}
	}
	return errs, nil
}

// current reports whether destination id runs (or failed to start) from
// fingerprint fp and no Seek asked for a restart; it clears that request.
func (rt *Runtime) current(id, fp string) bool {
	rt.drainsMu.Lock()
	defer rt.drainsMu.Unlock()
	e, reset := rt.drains[id], rt.reset[id]
	delete(rt.reset, id)
	return e != nil && e.fp == fp && !reset
}

func (rt *Runtime) isClosed() bool {
	rt.drainsMu.Lock()
	defer rt.drainsMu.Unlock()
	return rt.closed
}

func (rt *Runtime) drainIDsOf(esID string) []string {
	rt.drainsMu.Lock()
	defer rt.drainsMu.Unlock()
	var ids []string
	for id, e := range rt.drains {
		if e.esID == esID {
			ids = append(ids, id)
		}
	}
	return ids
}

// SyncAll syncs every stored Eventstream; the server calls it once at
// start-up (first restoring the emulator clock a previous run advanced).
// A destination that cannot start does not stop the others or
// the server: it comes up Failed, with its error in the topology, and can
// be deleted, updated or resumed (which tries again).
func (rt *Runtime) SyncAll(ctx context.Context) error {
	if err := rt.restoreClock(ctx); err != nil {
		return fmt.Errorf("restore the emulator clock: %w", err)
	}
	if !rt.cfg.Broker.Enabled() {
		return nil
	}
	ids, err := rt.cfg.Store.ItemIDsOfType(ctx, eventstream.ItemType)
	if err != nil {
		return fmt.Errorf("start Eventstreams: %w", err)
	}
	for _, id := range ids {
		errs, err := rt.syncDrains(ctx, id)
		if err != nil {
			return fmt.Errorf("start Eventstream %s: %w", id, err)
		}
		for _, e := range errs {
			rt.cfg.Logger.Error("destination failed to start; it stays Failed until resumed, updated or deleted",
				"destination", e.id, "eventstream", id, "err", e.err)
		}
		rt.syncSources(id)
	}
	return nil
}

// Stop stops the drains of destinations ids before their bindings are
// deleted (a drain must not outlive its journal); Sync would start them
// again while they are stored.
func (rt *Runtime) Stop(ids ...string) error {
	for _, id := range ids {
		if err := rt.stopDrain(id); err != nil {
			return err
		}
	}
	return nil
}

// StopItem stops, before item itemID is deleted, the drains that read from
// or write to it and the source runners of it (so none writes its topic again).
func (rt *Runtime) StopItem(ctx context.Context, itemID string) error {
	from, err := rt.cfg.Store.ListDestinations(ctx, itemID)
	if err != nil {
		return err
	}
	to, err := rt.cfg.Store.ListDestinationsOfItem(ctx, itemID)
	if err != nil {
		return err
	}
	for _, d := range append(from, to...) {
		if err := rt.stopDrain(d.ID); err != nil {
			return err
		}
	}
	rt.stopSourcesOf(itemID)
	return nil
}

// Close stops every source runner, then every drain, then closes the Kafka
// connections and the Kusto client they shared. It gives up waiting when
// ctx ends (a write or a client that hangs), leaving what is left to the
// process's exit. Nothing runs again afterwards.
func (rt *Runtime) Close(ctx context.Context) error {
	defer rt.saver.close() // after the drains: their last counts are saved
	rt.closeSources()      // they write into the topics the drains read
	rt.drainsMu.Lock()
	ds, pool := rt.drains, rt.pool
	rt.drains, rt.pool, rt.closed = map[string]*drainEntry{}, nil, true
	rt.drainsMu.Unlock()
	var wg sync.WaitGroup
	for _, e := range ds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.dr.Close()
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
	if rt.kustoClient != nil {
		_ = rt.kustoClient.Close()
	}
	return err
}
