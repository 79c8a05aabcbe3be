package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/drain"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/insights"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// writers build the row writer of each destination type.
var writers = map[string]func(rt *Runtime, d store.Destination, spec eventstream.Spec) (rowWriter, error){}

// DeliveryTimeout bounds how long a produce waits for its destinations.
const DeliveryTimeout = 30 * time.Second

// drainEntry is a running (or Failed) drain and what it was started from.
type drainEntry struct {
	dr   *drain.Drain
	esID string
	fp   string     // the fingerprint of what it runs; Sync restarts it when it changes
	sink *processor // nil for a Failed drain
}

// fingerprint is what a drain of d runs: the binding, the topic it reads and
// the operator chain it applies. Two equal fingerprints run alike.
func fingerprint(props eventstream.Model, d store.Destination) string {
	b, _ := json.Marshal(struct {
		D     store.Destination
		Topic string
		Ops   json.RawMessage
	}{d, props.Default().Topic, props.Operators})
	return string(b)
}

// startDrain (re)starts d's drain from props. A destination that cannot
// start is left Failed with the error, which is also returned.
func (rt *Runtime) startDrain(ctx context.Context, props eventstream.Model, d store.Destination) error {
	// The old drain (if any) stops before the new one reads the journal.
	if err := rt.stopDrain(d.ID); err != nil {
		return err
	}
	fp := fingerprint(props, d)
	dr, sink, err := rt.launchDrain(ctx, props, d)
	if err == nil {
		rt.setDrain(d, dr, fp, sink)
		return nil
	}
	reason := err.Error()
	var fe *fabricerr.Error
	if errors.As(err, &fe) {
		reason = string(fe.ErrorCode) + ": " + fe.Message
	} else {
		fe = fabricerr.New(http.StatusBadGateway, "DestinationFailed", "%s could not start: %v", describe(d), err).WithResource(d.ID, "Destination")
	}
	rt.setDrain(d, drain.Failed(fmt.Errorf("start the destination: %w", err)), fp, nil)
	// The reason goes to the destination's runtime logs too, where the
	// portal and the logs route show it (Sync tries once per change, so
	// this logs once per attempt).
	node := rt.Insights(d.ID)
	node.Add(insights.RuntimeErrors, 1)
	node.Log(rt.cfg.Now(), insights.LevelError, describe(d)+" could not start: "+reason)
	return fe
}

// setDrain records d's drain; after Close it closes it instead (a Sync
// that raced the shutdown).
func (rt *Runtime) setDrain(d store.Destination, dr *drain.Drain, fp string, sink *processor) {
	rt.drainsMu.Lock()
	closed := rt.closed
	if !closed {
		rt.drains[d.ID] = &drainEntry{dr: dr, esID: d.EventstreamID, fp: fp, sink: sink}
	}
	rt.drainsMu.Unlock()
	if closed {
		dr.Close()
	}
}

// launchDrain builds d's sink and starts its drain.
func (rt *Runtime) launchDrain(ctx context.Context, props eventstream.Model, d store.Destination) (*drain.Drain, *processor, error) {
	mk, ok := writers[d.Type]
	if !ok {
		return nil, nil, fabricerr.BadParameter("type", "%s destinations are not available in this build", d.Type)
	}
	spec, err := eventstream.SpecOf(d) // decoded once: the sink, its rejecter and the drain read it
	if err != nil {
		return nil, nil, err
	}
	w, err := mk(rt, d, spec)
	if err != nil {
		return nil, nil, err
	}
	w = rt.countOutput(d, rt.faultable(d, w)) // data insights, of injected faults too
	ops, err := props.Pipeline()
	if spec.OwnOperators {
		ops, err = eventstream.ParseOperators(spec.Operators)
	} else if direct(spec) {
		ops, err = nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	sink, err := newProcessor(ctx, rt.cfg.Store, d.ID, ops, w, rt.rejecterWith(d, spec, rt.rejectedFile(d)), rt.cfg.Logger.With("destination", d.ID))
	if err != nil {
		return nil, nil, err
	}
	if !direct(spec) {
		sink.format = spec.Format() // an Eventhouse's DirectIngestion reads the events as they are
	}
	if spec.Batching != nil {
		err = sink.enableBatching(ctx, *spec.Batching, rt.cfg.Now)
	} else {
		err = sink.commitLeftover(ctx, rt.cfg.Now)
	}
	if err != nil {
		return nil, nil, err
	}
	topic := props.Default().Topic
	if topic == "" {
		return nil, nil, fmt.Errorf("eventstream %s has no stream", d.EventstreamID)
	}
	if err := rt.cfg.Broker.EnsureTopic(ctx, topic); err != nil {
		return nil, nil, KafkaError(err)
	}
	pool, err := rt.drainPool()
	if err != nil {
		return nil, nil, KafkaError(err)
	}
	dr, err := drain.Start(ctx, drain.Config{
		Topic: topic, Group: eventstream.DrainGroup(d.ID), Pool: pool,
		Sink: rt.countInput(d, topic, sink), Logger: rt.cfg.Logger.With("destination", d.ID), Now: rt.cfg.Now,
		StopOnError: spec.ErrorPolicy == eventstream.PolicyFail,
	})
	if resume := (*drain.ResumeError)(nil); errors.As(err, &resume) {
		return nil, nil, err // the destination's own state, not Kafka
	} else if err != nil {
		return nil, nil, KafkaError(err)
	}
	return dr, sink, nil
}

// stopDrain stops destination id's drain (if any) and forgets it.
func (rt *Runtime) stopDrain(id string) error {
	rt.drainsMu.Lock()
	e := rt.drains[id]
	delete(rt.drains, id)
	rt.drainsMu.Unlock()
	if e != nil {
		return e.dr.Close()
	}
	return nil
}

// drainPool returns the Kafka connections every drain shares, connecting
// on first use.
func (rt *Runtime) drainPool() (*drain.Pool, error) {
	rt.drainsMu.Lock()
	defer rt.drainsMu.Unlock()
	if rt.pool == nil {
		p, err := drain.NewPool(rt.cfg.Broker.Bootstrap(), rt.cfg.Logger, rt.cfg.Broker.Security().Opts()...)
		if err != nil {
			return nil, err
		}
		rt.pool = p
	}
	return rt.pool, nil
}

// Await waits until every destination of the Eventstream has
// delivered past the produced positions (read-your-writes for tests). A
// failing destination answers 502 naming it; the events stay in Kafka and
// are delivered when it recovers. It waits for the drains that run (what
// the store holds and Sync started), so a call reads the store only to
// name a destination that failed.
func (rt *Runtime) Await(ctx context.Context, eventstreamID string, pos []broker.Position) error {
	waits := rt.drainsOf(eventstreamID)
	if len(waits) == 0 {
		return nil
	}
	last := map[int32]int64{}
	for _, p := range pos {
		last[p.Partition] = max(last[p.Partition], p.Offset)
	}
	ctx, cancel := context.WithTimeout(ctx, DeliveryTimeout)
	defer cancel()
	for _, w := range waits {
		err := w.dr.WaitPast(ctx, last)
		if err == nil || errors.Is(err, drain.ErrClosed) { // unbound meanwhile
			continue
		}
		d := rt.destinationOf(eventstreamID, w.id)
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return fabricerr.New(http.StatusGatewayTimeout, "DestinationTimeout",
				"%d events were written to Kafka, but %s has not delivered them within %s; they stay in Kafka and will be delivered",
				len(pos), describe(d), DeliveryTimeout).WithResource(d.ID, "Destination")
		case errors.As(err, new(*drain.StoppedError)):
			return fabricerr.New(http.StatusBadGateway, "DestinationFailed",
				"%d events were written to Kafka, but %s %v; they stay in Kafka and are delivered once it is resumed (POST …/destinations/%s/resume)",
				len(pos), describe(d), err, d.ID).WithResource(d.ID, "Destination")
		default:
			return fabricerr.New(http.StatusBadGateway, "DestinationFailed",
				"%d events were written to Kafka, but %s failed: %v; they stay in Kafka and will be delivered when it recovers",
				len(pos), describe(d), err).WithResource(d.ID, "Destination")
		}
	}
	return nil
}

// drainWait is a running drain of a destination.
type drainWait struct {
	id string // the destination's
	dr *drain.Drain
}

// drainsOf returns the running drains of the Eventstream's destinations,
// by destination ID.
func (rt *Runtime) drainsOf(eventstreamID string) []drainWait {
	rt.drainsMu.Lock()
	defer rt.drainsMu.Unlock()
	var out []drainWait
	for id, e := range rt.drains {
		if e.esID == eventstreamID {
			out = append(out, drainWait{id, e.dr})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// destinationOf is the stored destination id of the Eventstream, to name
// it in an error (its ID alone when the store does not answer).
func (rt *Runtime) destinationOf(eventstreamID, id string) store.Destination {
	ds, err := rt.cfg.Store.ListDestinations(context.Background(), eventstreamID)
	if err == nil {
		for _, d := range ds {
			if d.ID == id {
				return d
			}
		}
	}
	return store.Destination{ID: id, EventstreamID: eventstreamID}
}

func describe(d store.Destination) string {
	if d.Type == eventstream.DerivedStreamType {
		spec, _ := eventstream.SpecOf(d) // a spec that does not decode names no stream
		return fmt.Sprintf("the DerivedStream %q (%s, topic %s)", spec.Name, d.Target, eventstream.DerivedTopic(d.EventstreamID, d.Target))
	}
	s := fmt.Sprintf("the %s destination %s (item %s", d.Type, d.ID, d.ItemID)
	if d.Target != "" {
		s += ", table " + d.Target
	}
	return s + ")"
}
