package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// validate checks t against the caller's rights and the items it names.
func (a *API) validateTrigger(c *call, reflex store.Item, t *runtime.Trigger) error {
	if strings.TrimSpace(t.DisplayName) == "" {
		return fabricerr.BadParameter("displayName", "is required")
	}
	if t.EventType != runtime.EventReceived {
		return fabricerr.BadParameter("eventType", "%q is not supported; want %s", t.EventType, runtime.EventReceived)
	}
	src, err := a.cfg.Store.GetItem(c.r.Context(), t.Source.ItemID)
	if errors.Is(err, store.ErrNotFound) {
		return fabricerr.NotFound(fabricerr.ItemNotFound, "Item", t.Source.ItemID).WithDetails(fabricerr.Detail{ErrorCode: fabricerr.ItemNotFound, Message: "source.itemId"})
	} else if err != nil {
		return err
	}
	if src.Type != TypeEventstream {
		return fabricerr.BadParameter("source.itemId", "item %s is a %s, not an Eventstream", src.ID, src.Type)
	}
	if err := a.require(c, src.WorkspaceID, store.RoleViewer); err != nil {
		return err
	}
	if t.Action.WorkspaceID == "" {
		t.Action.WorkspaceID = reflex.WorkspaceID
	}
	act, err := a.cfg.Store.GetItem(c.r.Context(), t.Action.ItemID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && act.WorkspaceID != t.Action.WorkspaceID) {
		return fabricerr.NotFound(fabricerr.ItemNotFound, "Item", t.Action.ItemID).WithDetails(fabricerr.Detail{ErrorCode: fabricerr.ItemNotFound, Message: "action.itemId"})
	} else if err != nil {
		return err
	}
	if err := a.require(c, act.WorkspaceID, store.RoleContributor); err != nil {
		return err
	}
	if t.Action.JobType, err = a.jobTypeOf("action.jobType", act, t.Action.JobType); err != nil {
		return err
	}
	if len(t.Condition) > 0 && string(t.Condition) != "null" {
		if _, err := runtime.ParseCondition(t.Condition); err != nil {
			return err
		}
	}
	return nil
}

func (a *API) createTrigger(c *call) error {
	reflex, err := a.item(c, TypeReflex, store.RoleContributor)
	if err != nil {
		return err
	}
	var t runtime.Trigger
	if err := a.decode(c, &t); err != nil {
		return err
	}
	if err := a.validateTrigger(c, reflex, &t); err != nil {
		return err
	}
	t.ID = uuid.NewString()
	body, _ := json.Marshal(t)
	if err := a.cfg.Store.CreateTrigger(c.r.Context(), store.Trigger{ID: t.ID, ReflexID: reflex.ID, Body: body, CreatedAt: a.cfg.Now()}); err != nil {
		return err
	}
	c.location("workspaces", reflex.WorkspaceID, "reflexes", reflex.ID, "triggers", t.ID)
	return c.JSON(http.StatusCreated, renderTrigger(t))
}

func renderTrigger(t runtime.Trigger) runtime.Trigger {
	on := t.IsEnabled()
	t.Enabled = &on
	return t
}

func (a *API) listTriggers(c *call) error {
	reflex, err := a.item(c, TypeReflex, store.RoleViewer)
	if err != nil {
		return err
	}
	ts, err := a.cfg.Store.ListTriggers(c.r.Context(), reflex.ID)
	if err != nil {
		return err
	}
	out := make([]runtime.Trigger, len(ts))
	for i, t := range ts {
		out[i] = renderTrigger(runtime.DecodeTrigger(t))
	}
	return list(c, out, 0)
}

func (a *API) trigger(c *call, min store.Role) (store.Item, store.Trigger, error) {
	reflex, err := a.item(c, TypeReflex, min)
	if err != nil {
		return reflex, store.Trigger{}, err
	}
	id := c.r.PathValue("trigger")
	t, err := a.cfg.Store.GetTrigger(c.r.Context(), id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && t.ReflexID != reflex.ID) {
		return reflex, t, fabricerr.NotFound("TriggerNotFound", "Trigger", id)
	}
	return reflex, t, err
}

func (a *API) getTrigger(c *call) error {
	_, t, err := a.trigger(c, store.RoleViewer)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderTrigger(runtime.DecodeTrigger(t)))
}

// updateTrigger applies the fields present in the body and re-validates the whole rule.
func (a *API) updateTrigger(c *call) error {
	reflex, st, err := a.trigger(c, store.RoleContributor)
	if err != nil {
		return err
	}
	t := runtime.DecodeTrigger(st)
	body, err := a.readBody(c)
	if err != nil {
		return err
	}
	patch := t
	if err := decodeJSON(body, &patch); err != nil {
		return err
	}
	patch.ID = t.ID
	if err := a.validateTrigger(c, reflex, &patch); err != nil {
		return err
	}
	st.Body, _ = json.Marshal(patch)
	if err := a.cfg.Store.UpdateTrigger(c.r.Context(), st); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderTrigger(patch))
}

func (a *API) deleteTrigger(c *call) error {
	_, t, err := a.trigger(c, store.RoleContributor)
	if err != nil {
		return err
	}
	if err := a.cfg.Store.DeleteTrigger(c.r.Context(), t.ID); err != nil {
		return err
	}
	c.w.WriteHeader(http.StatusOK)
	return nil
}
