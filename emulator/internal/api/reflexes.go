package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/jobs"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// EventReceived is the only trigger event type: an event reached the Reflex
// destination of an Eventstream.
const EventReceived = "Microsoft.Fabric.Eventstream.EventReceived"

// trigger is an Activator rule as the API accepts and renders it.
type trigger struct {
	ID          string          `json:"id"`
	DisplayName string          `json:"displayName"`
	Enabled     *bool           `json:"enabled"`
	EventType   string          `json:"eventType"`
	Source      triggerSource   `json:"source"`
	Condition   json.RawMessage `json:"condition,omitempty"`
	Action      triggerAction   `json:"action"`
}

type triggerSource struct {
	ItemID string `json:"itemId"`
}

type triggerAction struct {
	WorkspaceID string `json:"workspaceId"`
	ItemID      string `json:"itemId"`
	JobType     string `json:"jobType"`
}

func (t trigger) enabled() bool { return t.Enabled == nil || *t.Enabled }

// validate checks t against the caller's rights and the items it names.
func (a *API) validateTrigger(c *call, reflex store.Item, t *trigger) error {
	if strings.TrimSpace(t.DisplayName) == "" {
		return fabricerr.BadParameter("displayName", "is required")
	}
	if t.EventType != EventReceived {
		return fabricerr.BadParameter("eventType", "%q is not supported; want %s", t.EventType, EventReceived)
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
	if err := validJobType("action.jobType", t.Action.JobType); err != nil {
		return err
	}
	if len(t.Condition) > 0 && string(t.Condition) != "null" {
		if _, err := parseCondition(t.Condition); err != nil {
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
	var t trigger
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

func renderTrigger(t trigger) trigger {
	on := t.enabled()
	t.Enabled = &on
	return t
}

func decodeTrigger(st store.Trigger) trigger {
	var t trigger
	_ = json.Unmarshal(st.Body, &t)
	t.ID = st.ID
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
	out := make([]trigger, len(ts))
	for i, t := range ts {
		out[i] = renderTrigger(decodeTrigger(t))
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
	return c.JSON(http.StatusOK, renderTrigger(decodeTrigger(t)))
}

// updateTrigger applies the fields present in the body and re-validates the whole rule.
func (a *API) updateTrigger(c *call) error {
	reflex, st, err := a.trigger(c, store.RoleContributor)
	if err != nil {
		return err
	}
	t := decodeTrigger(st)
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

// reflexWriter starts a job per row and matching trigger. Each start is
// keyed by the event's position (or, for rows made by a window, by the
// batch's seq and the row's index), so a replay starts nothing twice.
type reflexWriter struct {
	a    *API
	dest store.Destination
}

func (w reflexWriter) write(ctx context.Context, seq int64, out []outRow) error {
	stored, err := w.a.cfg.Store.ListTriggers(ctx, w.dest.ItemID)
	if err != nil {
		return err
	}
	type armed struct {
		t    trigger
		cond condition
	}
	var live []armed
	for _, st := range stored {
		t := decodeTrigger(st)
		if !t.enabled() || t.EventType != EventReceived || t.Source.ItemID != w.dest.EventstreamID {
			continue
		}
		cond, err := parseCondition(t.Condition)
		if err != nil {
			return fmt.Errorf("trigger %s: %w", t.ID, err)
		}
		if act, err := w.a.cfg.Store.GetItem(ctx, t.Action.ItemID); errors.Is(err, store.ErrNotFound) || (err == nil && act.WorkspaceID != t.Action.WorkspaceID) {
			return fmt.Errorf("trigger %s (%s) starts %s jobs of item %s, which no longer exists", t.ID, t.DisplayName, t.Action.JobType, t.Action.ItemID)
		} else if err != nil {
			return err
		}
		live = append(live, armed{t, cond})
	}
	for i, r := range out {
		at := fmt.Sprintf("%d/%d", r.Partition, r.Offset)
		if r.Offset < 0 {
			at = fmt.Sprintf("seq-%d/%d", seq, i)
		}
		for _, l := range live {
			if l.cond != nil && !l.cond(r.Row) {
				continue
			}
			event, _ := json.Marshal(map[string]any{
				"Key": string(r.Key), "Value": string(r.Value), "EventType": EventReceived,
				"Source": map[string]any{"itemId": w.dest.EventstreamID, "partition": r.Partition, "offset": r.Offset},
			})
			_, err := w.a.cfg.Jobs.Submit(ctx, store.JobInstance{
				WorkspaceID: l.t.Action.WorkspaceID, ItemID: l.t.Action.ItemID, JobType: l.t.Action.JobType, InvokeType: "EventTriggered",
				TriggerEvent: event, DedupeKey: w.dest.ID + "/" + at + "/" + l.t.ID,
			})
			if err != nil && !errors.Is(err, jobs.ErrDuplicate) {
				return err
			}
		}
	}
	return nil
}

func init() {
	writers["Reflex"] = func(a *API, d store.Destination) (rowWriter, error) { return reflexWriter{a: a, dest: d}, nil }
}
