package api

import (
	"net/http"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// The triggers (Activator rules) of a Reflex; control.Plane checks and
// stores them.

// triggerRef is the call's {trigger} of its Reflex {id}.
func triggerRef(c *call) control.TriggerRef {
	return control.TriggerRef{Reflex: control.ItemRef{WorkspaceID: c.r.PathValue("ws"), ID: c.r.PathValue("id")}, Trigger: c.r.PathValue("trigger")}
}

func (a triggerHandlers) createTrigger(c *call) error {
	if _, err := a.item(c, TypeReflex, store.RoleContributor); err != nil {
		return err // the caller's reach first, as every route answers
	}
	var t runtime.Trigger
	if err := a.decode(c, &t); err != nil {
		return err
	}
	t, err := a.plane.CreateTrigger(c.r.Context(), c.caller(), triggerRef(c).Reflex, t)
	if err != nil {
		return err
	}
	c.location("workspaces", c.r.PathValue("ws"), "reflexes", c.r.PathValue("id"), "triggers", t.ID)
	return c.JSON(http.StatusCreated, renderTrigger(t))
}

func renderTrigger(t runtime.Trigger) runtime.Trigger {
	on := t.IsEnabled()
	t.Enabled = &on
	return t
}

func (a triggerHandlers) listTriggers(c *call) error {
	ts, err := a.plane.Triggers(c.r.Context(), c.caller(), triggerRef(c).Reflex)
	if err != nil {
		return err
	}
	out := make([]runtime.Trigger, len(ts))
	for i, t := range ts {
		out[i] = renderTrigger(runtime.DecodeTrigger(t))
	}
	return list(c, out, 0)
}

func (a triggerHandlers) getTrigger(c *call) error {
	_, t, err := a.plane.Trigger(c.r.Context(), c.caller(), triggerRef(c), store.RoleViewer)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderTrigger(runtime.DecodeTrigger(t)))
}

// updateTrigger applies the fields present in the body and re-validates the whole rule.
func (a triggerHandlers) updateTrigger(c *call) error {
	if _, _, err := a.plane.Trigger(c.r.Context(), c.caller(), triggerRef(c), store.RoleContributor); err != nil {
		return err // the caller's reach first, as every route answers
	}
	body, err := a.readBody(c)
	if err != nil {
		return err
	}
	patch := func(t *runtime.Trigger) error { return fabricerr.DecodeJSON(body, t) }
	t, err := a.plane.UpdateTrigger(c.r.Context(), c.caller(), triggerRef(c), patch)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, renderTrigger(t))
}

func (a triggerHandlers) deleteTrigger(c *call) error {
	return answerOK(c, a.plane.DeleteTrigger(c.r.Context(), c.caller(), triggerRef(c)))
}
