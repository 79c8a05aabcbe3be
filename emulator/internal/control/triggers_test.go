package control

import (
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

func TestTriggers(t *testing.T) {
	e := newEnv(t)
	reflex := store.Item{ID: uuid.NewString(), WorkspaceID: e.ws, Type: TypeReflex, DisplayName: "r"}
	must(t, e.st.CreateItem(e.ctx, reflex))
	notebook := store.Item{ID: uuid.NewString(), WorkspaceID: e.ws, Type: "Notebook", DisplayName: "nb"}
	must(t, e.st.CreateItem(e.ctx, notebook))
	e.plane.cfg.JobTypes = func(typ string) []string {
		if typ == "Notebook" {
			return []string{"RunNotebook"}
		}
		return nil
	}
	ref := ItemRef{WorkspaceID: e.ws, ID: reflex.ID}
	rule := runtime.Trigger{DisplayName: "hot", EventType: runtime.EventReceived}
	rule.Source.ItemID = e.es.ID
	rule.Action.ItemID, rule.Action.JobType = notebook.ID, "runnotebook"
	got, err := e.plane.CreateTrigger(e.ctx, e.admin, ref, rule)
	must(t, err)
	if got.ID == "" || got.Action.JobType != "RunNotebook" || got.Action.WorkspaceID != e.ws {
		t.Fatalf("trigger %+v: want an id, Fabric's job type spelling and the Reflex's workspace", got)
	}
	bad := rule
	bad.Action.JobType = "Pipeline"
	_, err = e.plane.CreateTrigger(e.ctx, e.admin, ref, bad)
	wantError(t, err, 400, InvalidJobType)
	bad = rule
	bad.Source.ItemID = e.lakehouse.ID
	_, err = e.plane.CreateTrigger(e.ctx, e.admin, ref, bad)
	wantError(t, err, 400, fabricerr.InvalidInput)
	_, err = e.plane.CreateTrigger(e.ctx, e.viewer, ref, rule)
	wantError(t, err, 403, fabricerr.InsufficientPrivileges)

	tref := TriggerRef{Reflex: ref, Trigger: got.ID}
	renamed, err := e.plane.UpdateTrigger(e.ctx, e.admin, tref, func(t *runtime.Trigger) error { t.DisplayName = "hotter"; return nil })
	if err != nil || renamed.DisplayName != "hotter" || renamed.ID != got.ID {
		t.Fatalf("update: %+v, %v", renamed, err)
	}
	_, err = e.plane.UpdateTrigger(e.ctx, e.admin, tref, func(t *runtime.Trigger) error { t.DisplayName = " "; return nil })
	wantError(t, err, 400, fabricerr.InvalidInput)
	must(t, e.plane.DeleteTrigger(e.ctx, e.admin, tref))
	_, _, err = e.plane.Trigger(e.ctx, e.admin, tref, store.RoleViewer)
	wantError(t, err, 404, "TriggerNotFound")
}

func TestJobTypeOf(t *testing.T) {
	e := newEnv(t)
	nb := store.Item{ID: uuid.NewString(), Type: "Notebook"}
	e.plane.cfg.JobTypes = func(typ string) []string {
		if typ == "Notebook" {
			return []string{"RunNotebook"}
		}
		return nil
	}
	if got, err := e.plane.JobTypeOf("jobType", nb, "RUNNOTEBOOK"); err != nil || got != "RunNotebook" {
		t.Fatalf("got %q, %v", got, err)
	}
	if got, err := e.plane.JobTypeOf("jobType", store.Item{Type: "Report"}, "Anything"); err != nil || got != "Anything" {
		t.Fatalf("a type without known jobs: %q, %v", got, err)
	}
	for _, bad := range []string{"Pipeline", "1bad", ""} {
		_, err := e.plane.JobTypeOf("jobType", nb, bad)
		wantError(t, err, 400, InvalidJobType)
	}
}
