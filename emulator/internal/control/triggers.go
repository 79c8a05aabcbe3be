package control

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// TriggerRef names a trigger (an Activator rule) of a Reflex.
type TriggerRef struct {
	Reflex ItemRef
	// Trigger is the trigger's id.
	Trigger string
}

// validateTrigger checks t against who's rights and the items it names.
func (p *Plane) validateTrigger(ctx context.Context, who Caller, reflex store.Item, t *runtime.Trigger) error {
	if strings.TrimSpace(t.DisplayName) == "" {
		return fabricerr.BadParameter("displayName", "is required")
	}
	if t.EventType != runtime.EventReceived {
		return fabricerr.BadParameter("eventType", "%q is not supported; want %s", t.EventType, runtime.EventReceived)
	}
	src, err := p.cfg.Store.GetItem(ctx, t.Source.ItemID)
	if errors.Is(err, store.ErrNotFound) {
		return fabricerr.NotFound(fabricerr.ItemNotFound, "Item", t.Source.ItemID).WithDetails(fabricerr.Detail{ErrorCode: fabricerr.ItemNotFound, Message: "source.itemId"})
	} else if err != nil {
		return err
	}
	if src.Type != TypeEventstream {
		return fabricerr.BadParameter("source.itemId", "item %s is a %s, not an Eventstream", src.ID, src.Type)
	}
	if err := p.Require(ctx, who, src.WorkspaceID, store.RoleViewer); err != nil {
		return err
	}
	if t.Action.WorkspaceID == "" {
		t.Action.WorkspaceID = reflex.WorkspaceID
	}
	act, err := p.cfg.Store.GetItem(ctx, t.Action.ItemID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && act.WorkspaceID != t.Action.WorkspaceID) {
		return fabricerr.NotFound(fabricerr.ItemNotFound, "Item", t.Action.ItemID).WithDetails(fabricerr.Detail{ErrorCode: fabricerr.ItemNotFound, Message: "action.itemId"})
	} else if err != nil {
		return err
	}
	if err := p.Require(ctx, who, act.WorkspaceID, store.RoleContributor); err != nil {
		return err
	}
	if t.Action.JobType, err = p.JobTypeOf("action.jobType", act, t.Action.JobType); err != nil {
		return err
	}
	if len(t.Condition) > 0 && string(t.Condition) != "null" {
		if _, err := runtime.ParseCondition(t.Condition); err != nil {
			return err
		}
	}
	return nil
}

// CreateTrigger adds trigger t to Reflex ref and returns it with its id.
func (p *Plane) CreateTrigger(ctx context.Context, who Caller, ref ItemRef, t runtime.Trigger) (runtime.Trigger, error) {
	ref.Type = TypeReflex
	reflex, err := p.Item(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return t, err
	}
	if err := p.validateTrigger(ctx, who, reflex, &t); err != nil {
		return t, err
	}
	t.ID = uuid.NewString()
	body, _ := json.Marshal(t)
	return t, p.cfg.Store.CreateTrigger(ctx, store.Trigger{ID: t.ID, ReflexID: reflex.ID, Body: body, CreatedAt: p.cfg.Now()})
}

// Trigger loads trigger ref of a Reflex where who holds at least min.
func (p *Plane) Trigger(ctx context.Context, who Caller, ref TriggerRef, min store.Role) (store.Item, store.Trigger, error) {
	ref.Reflex.Type = TypeReflex
	reflex, err := p.Item(ctx, who, ref.Reflex, min)
	if err != nil {
		return reflex, store.Trigger{}, err
	}
	t, err := p.cfg.Store.GetTrigger(ctx, ref.Trigger)
	if errors.Is(err, store.ErrNotFound) || (err == nil && t.ReflexID != reflex.ID) {
		return reflex, t, fabricerr.NotFound("TriggerNotFound", "Trigger", ref.Trigger)
	}
	return reflex, t, err
}

// UpdateTrigger applies patch (the door's decoding of the fields a call
// sets) to trigger ref and re-validates the whole rule.
func (p *Plane) UpdateTrigger(ctx context.Context, who Caller, ref TriggerRef, patch func(*runtime.Trigger) error) (runtime.Trigger, error) {
	reflex, st, err := p.Trigger(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return runtime.Trigger{}, err
	}
	t := runtime.DecodeTrigger(st)
	next := t
	if err := patch(&next); err != nil {
		return t, err
	}
	next.ID = t.ID
	if err := p.validateTrigger(ctx, who, reflex, &next); err != nil {
		return t, err
	}
	st.Body, _ = json.Marshal(next)
	return next, p.cfg.Store.UpdateTrigger(ctx, st)
}

// DeleteTrigger removes trigger ref; who must be a Contributor.
func (p *Plane) DeleteTrigger(ctx context.Context, who Caller, ref TriggerRef) error {
	_, t, err := p.Trigger(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return err
	}
	return p.cfg.Store.DeleteTrigger(ctx, t.ID)
}
