package control

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Start is a resume request's startType (Now, WhenLastStopped or
// CustomTime, any case) and CustomTime's customStartDateTime (RFC 3339).
type Start struct {
	StartType           string `json:"startType"`
	CustomStartDateTime string `json:"customStartDateTime"`
}

// check returns s's canonical start type and, for CustomTime, its time.
func (s Start) check() (string, time.Time, error) {
	typ := s.StartType
	for _, t := range []string{"Now", "WhenLastStopped", "CustomTime"} {
		if strings.EqualFold(typ, t) {
			typ = t
		}
	}
	switch typ {
	case "Now", "WhenLastStopped":
		return typ, time.Time{}, nil
	case "CustomTime":
		at, err := time.Parse(time.RFC3339, s.CustomStartDateTime)
		if err != nil {
			return typ, at, fabricerr.BadParameter("customStartDateTime", "startType CustomTime needs an RFC 3339 time such as 2026-01-02T15:04:05Z, got %q", s.CustomStartDateTime)
		}
		return typ, at, nil
	}
	return typ, time.Time{}, fabricerr.BadParameter("startType", "%q is not one of Now, WhenLastStopped, CustomTime", s.StartType)
}

// NodeRef names a source or destination node of an Eventstream.
type NodeRef struct {
	Eventstream ItemRef
	// Node is the node's id (any case).
	Node string
}

// setPaused adds (pause) or removes ids from es's paused set, stores it
// and syncs the runtime: paused drains and sources stop, resumed ones start.
func (p *Plane) setPaused(ctx context.Context, es *store.Item, pause bool, ids ...string) error {
	props, err := eventstream.Decode(*es)
	if err != nil {
		return err
	}
	props.SetPaused(pause, ids...)
	if err := eventstream.Save(ctx, p.cfg.Store, es, props); err != nil {
		return err
	}
	err = p.sync(ctx, es.ID)
	// Kafka clients of paused custom endpoints are cut off, and refused until resumed.
	if pause {
		p.closeSessions(ids...)
	}
	return err
}

// sync makes what runs of Eventstream id match what is stored, then tells
// OnChange.
func (p *Plane) sync(ctx context.Context, id string) error {
	defer p.changed(id)
	return p.rt.Sync(ctx, id)
}

// PauseEventstream pauses every source, destination and DerivedStream (its
// internal binding) of Eventstream ref; its DefaultStream refuses produce.
func (p *Plane) PauseEventstream(ctx context.Context, who Caller, ref ItemRef) error {
	es, err := p.eventstream(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return err
	}
	dests, props, err := p.nodes(ctx, es)
	if err != nil {
		return err
	}
	ids := props.CustomEndpoints()
	for _, s := range props.Streams {
		ids = append(ids, s.ID)
	}
	for _, d := range dests {
		ids = append(ids, d.ID)
	}
	return p.setPaused(ctx, &es, true, ids...)
}

// ResumeEventstream resumes everything paused of Eventstream ref,
// destinations from where start says.
func (p *Plane) ResumeEventstream(ctx context.Context, who Caller, ref ItemRef, start Start) error {
	es, err := p.eventstream(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return err
	}
	typ, at, err := start.check()
	if err != nil {
		return err
	}
	dests, props, err := p.nodes(ctx, es)
	if err != nil {
		return err
	}
	for _, d := range dests { // they start from startType with the sync below
		if props.IsPaused(d.ID) || p.rt.StartFailed(d.ID) {
			if err := p.rt.Seek(ctx, props, d, typ, at); err != nil {
				return err
			}
		}
	}
	return p.setPaused(ctx, &es, false, props.Paused...)
}

// nodes loads Eventstream es's bindings and its model.
func (p *Plane) nodes(ctx context.Context, es store.Item) ([]store.Destination, eventstream.Model, error) {
	dests, err := p.cfg.Store.ListDestinations(ctx, es.ID)
	if err != nil {
		return nil, eventstream.Model{}, err
	}
	props, err := eventstream.Decode(es)
	return dests, props, err
}

// source checks that ref.Node is a source of its Eventstream.
func (p *Plane) source(ctx context.Context, who Caller, ref NodeRef) (store.Item, string, error) {
	es, err := p.eventstream(ctx, who, ref.Eventstream, store.RoleContributor)
	if err != nil {
		return es, "", err
	}
	id := strings.ToLower(ref.Node)
	props, err := eventstream.Decode(es)
	if err != nil {
		return es, "", err
	}
	ids, err := props.NodeIDs("sources", nil)
	if err != nil {
		return es, "", err
	}
	if !slices.Contains(ids, id) {
		return es, "", fabricerr.NotFound(fabricerr.EntityNotFound, "Source", id)
	}
	return es, id, nil
}

// PauseSource pauses source ref.
func (p *Plane) PauseSource(ctx context.Context, who Caller, ref NodeRef) error {
	es, id, err := p.source(ctx, who, ref)
	if err != nil {
		return err
	}
	return p.setPaused(ctx, &es, true, id)
}

// ResumeSource resumes source ref. A CustomEndpoint source buffers nothing
// while paused (its producers are refused), so every start type just
// reopens it.
func (p *Plane) ResumeSource(ctx context.Context, who Caller, ref NodeRef, start Start) error {
	es, id, err := p.source(ctx, who, ref)
	if err != nil {
		return err
	}
	if _, _, err := start.check(); err != nil {
		return err
	}
	return p.setPaused(ctx, &es, false, id)
}

// destinationNode finds ref.Node: a binding, or a CustomEndpoint destination.
func (p *Plane) destinationNode(ctx context.Context, who Caller, ref NodeRef) (store.Item, *store.Destination, string, error) {
	es, err := p.eventstream(ctx, who, ref.Eventstream, store.RoleContributor)
	if err != nil {
		return es, nil, "", err
	}
	id := strings.ToLower(ref.Node)
	if d, err := p.cfg.Store.GetDestination(ctx, id); err == nil && d.EventstreamID == es.ID && !Internal(d) {
		return es, &d, id, nil
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return es, nil, "", err
	}
	props, err := eventstream.Decode(es)
	if err != nil {
		return es, nil, "", err
	}
	if slices.Contains(props.CustomDestinations(), id) {
		return es, nil, id, nil
	}
	return es, nil, "", fabricerr.NotFound(DestinationNotFound, "Destination", id)
}

// PauseDestination pauses destination ref: its drain stops; events stay
// in Kafka.
func (p *Plane) PauseDestination(ctx context.Context, who Caller, ref NodeRef) error {
	es, _, id, err := p.destinationNode(ctx, who, ref)
	if err != nil {
		return err
	}
	return p.setPaused(ctx, &es, true, id)
}

// ResumeDestination starts destination ref when it is paused (or Failed
// to start) from where start says; a running one is left as it is.
func (p *Plane) ResumeDestination(ctx context.Context, who Caller, ref NodeRef, start Start) error {
	es, d, id, err := p.destinationNode(ctx, who, ref)
	if err != nil {
		return err
	}
	typ, at, err := start.check()
	if err != nil {
		return err
	}
	props, err := eventstream.Decode(es)
	if err != nil {
		return err
	}
	paused := props.IsPaused(id)
	if !paused && (d == nil || !p.rt.StartFailed(d.ID)) {
		return nil // running: nothing to resume
	}
	if d != nil {
		if err := p.rt.Seek(ctx, props, *d, typ, at); err != nil {
			return err
		}
	}
	if paused {
		return p.setPaused(ctx, &es, false, id)
	}
	return p.sync(ctx, es.ID) // Failed to start: try again
}

// CheckSource checks that who may pause or resume source ref, which
// exists: a door asks before it reads the request's body.
func (p *Plane) CheckSource(ctx context.Context, who Caller, ref NodeRef) error {
	_, _, err := p.source(ctx, who, ref)
	return err
}

// CheckDestinationNode checks that who may pause or resume destination
// ref, which exists: a door asks before it reads the request's body.
func (p *Plane) CheckDestinationNode(ctx context.Context, who Caller, ref NodeRef) error {
	_, _, _, err := p.destinationNode(ctx, who, ref)
	return err
}
