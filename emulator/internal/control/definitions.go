package control

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// Eventstream definitions: internal/definition compiles a topology into a
// plan (items and authorisation through this package's resolver), then
// the plan is stored: its Lakehouse, Eventhouse and Activator destinations
// become bindings, exactly as Bind makes them, and each DerivedStream gets
// its own topic (derived_streams.go). Everything is checked before
// anything changes. A topology the compiler refuses is a
// *definition.Refusal, which the door renders.

// DefinitionUpdate is an updateDefinition request: the decoded parts and
// whether the definition's .platform metadata renames the Eventstream.
type DefinitionUpdate struct {
	Parts          definition.Parts
	UpdateMetadata bool
}

// UpdateDefinition replaces the definition of Eventstream ref with req's.
func (p *Plane) UpdateDefinition(ctx context.Context, who Caller, ref ItemRef, req DefinitionUpdate) error {
	es, err := p.eventstream(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return err
	}
	plan, err := p.planDefinition(ctx, who, es, req.Parts)
	if err != nil {
		return err
	}
	if !req.UpdateMetadata {
		plan.DisplayName, plan.Description = nil, nil
	} else if err := checkMetadata(plan); err != nil {
		return err
	}
	return p.ApplyPlan(ctx, &es, plan)
}

// PlanCreation checks definition parts for Eventstream it (not yet stored)
// in the name of who and gives it the plan's DefaultStream. The request's
// names win over the definition's.
func (p *Plane) PlanCreation(ctx context.Context, who Caller, it *store.Item, parts definition.Parts) (*definition.Plan, error) {
	plan, err := p.planDefinition(ctx, who, *it, parts)
	if err != nil {
		return nil, err
	}
	plan.DisplayName, plan.Description = nil, nil
	m := eventstream.Model{Streams: []eventstream.Stream{{ID: plan.StreamID, Name: plan.StreamName,
		Type: eventstream.DefaultStreamType, Topic: eventstream.DefaultTopic(it.ID, plan.StreamID)}}}
	return plan, m.Encode(it)
}

func checkMetadata(p *definition.Plan) error {
	if p.DisplayName != nil {
		if err := ValidItemName(*p.DisplayName); err != nil {
			return err
		}
	}
	if p.Description != nil {
		return ValidDescription(*p.Description)
	}
	return nil
}

// ApplyPlan stores plan (made by PlanCreation or planDefinition, which
// authorised it) on es (already stored, with its stream) and reconciles
// the destinations: kept (same type, item and table), created, or removed
// when the definition no longer has them.
func (p *Plane) ApplyPlan(ctx context.Context, es *store.Item, plan *definition.Plan) error {
	existing, err := p.UserDestinations(ctx, es.ID)
	if err != nil {
		return err
	}
	before, err := eventstream.Decode(*es)
	if err != nil {
		return err
	}
	endpointsBefore := before.CustomEndpoints()
	dests, keep := plannedDestinations(es.ID, plan, existing)
	oldStreams, err := setPlan(es, plan, keep)
	if err != nil {
		return err
	}
	if err := p.cfg.Store.UpdateItem(ctx, *es); errors.Is(err, store.ErrConflict) {
		return NameInUse(es.Type, es.DisplayName)
	} else if err != nil {
		return err
	}
	if err := p.dropDestinations(ctx, existing, keep); err != nil {
		return err
	}
	var created []store.Destination
	for _, d := range dests {
		d, isNew, _, err := p.storeBinding(ctx, d, false)
		if err != nil {
			return err
		}
		if isNew {
			created = append(created, d)
		}
	}
	derived, err := p.storeDerivedStreams(ctx, *es, plan, oldStreams)
	if err != nil {
		return err
	}
	// One reconcile: drains whose bindings or operators changed restart;
	// sources start, restart or stop. New bindings that fail to start are
	// removed again.
	if err := p.sync(ctx, es.ID); err != nil {
		return p.undoUnstarted(ctx, append(created, derived...), err)
	}
	after, err := eventstream.Decode(*es)
	if err != nil {
		return err
	}
	endpointsAfter := after.CustomEndpoints()
	gone := slices.DeleteFunc(endpointsBefore, func(id string) bool { return slices.Contains(endpointsAfter, id) })
	return p.CloseEndpoints(ctx, gone...)
}

// undoUnstarted removes the new bindings among created whose drains failed
// to start with err, and returns err, naming a DerivedStream's.
func (p *Plane) undoUnstarted(ctx context.Context, created []store.Destination, err error) error {
	var derived string
	for _, d := range created {
		if p.unstarted(ctx, d) && Internal(d) && derived == "" {
			spec, _ := eventstream.SpecOf(d)
			derived = spec.Name
		}
	}
	if derived != "" {
		return fmt.Errorf("start derived stream %s: %w", derived, err)
	}
	return err
}

// CloseEndpoints forgets the keys of CustomEndpoint nodes that are gone
// and closes the Kafka sessions they opened.
func (p *Plane) CloseEndpoints(ctx context.Context, nodes ...string) error {
	for _, n := range nodes {
		if err := p.cfg.Store.DeleteEndpointKeys(ctx, n); err != nil {
			return err
		}
	}
	p.closeSessions(nodes...)
	return nil
}

// plannedDestinations returns the destinations of p on Eventstream esID,
// each with the id of the existing destination of the same type, item and
// table or a new one (set in its node too), and the set of those ids.
func plannedDestinations(esID string, p *definition.Plan, existing []store.Destination) ([]store.Destination, map[string]bool) {
	keep := map[string]bool{}
	dests := make([]store.Destination, len(p.Destinations))
	for i, pd := range p.Destinations {
		d := destinationOf(esID, p, pd)
		d.ID = uuid.NewString()
		for _, o := range existing {
			if o.Type == d.Type && o.ItemID == d.ItemID && o.Target == d.Target {
				d.ID = o.ID
			}
		}
		keep[d.ID] = true
		pd.Node.Raw["id"] = d.ID
		dests[i] = d
	}
	return dests, keep
}

// setPlan sets p on es (not stored): its definition, operators, streams,
// paused nodes (keep are its destinations' ids) and metadata. It returns
// the streams es had.
func setPlan(es *store.Item, p *definition.Plan, keep map[string]bool) ([]eventstream.Stream, error) {
	props, err := eventstream.Decode(*es)
	if err != nil {
		return nil, err
	}
	def := p.Parts
	def.Topology = p.Topology.Marshal()
	if err := props.SetDefinition(def); err != nil {
		return nil, err
	}
	props.Operators = p.Operators
	props.Streams[0].Name = p.StreamName
	oldStreams := props.Streams
	props.Streams = props.Streams[:1:1]
	live := append(slices.Clone(p.NodeIDs), props.Streams[0].ID)
	for id := range keep {
		live = append(live, id)
	}
	// A paused Eventstream keeps its new DerivedStreams paused too.
	esPaused := props.StreamPaused()
	for _, ps := range p.Derived {
		id := ps.Node.ID()
		props.Streams = append(props.Streams, eventstream.Stream{ID: id, Name: ps.Node.Name,
			Type: eventstream.DerivedStreamType, Topic: eventstream.DerivedTopic(es.ID, id)})
		live = append(live, strings.ToLower(id))
		if esPaused && !slices.ContainsFunc(oldStreams, func(s eventstream.Stream) bool { return strings.EqualFold(s.ID, id) }) {
			props.Paused = append(props.Paused, strings.ToLower(id))
		}
	}
	props.Paused = slices.DeleteFunc(props.Paused, func(id string) bool { return !slices.Contains(live, id) })
	if err := props.Encode(es); err != nil {
		return nil, err
	}
	if p.DisplayName != nil {
		es.DisplayName = *p.DisplayName
	}
	if p.Description != nil {
		es.Description = *p.Description
	}
	return oldStreams, nil
}
