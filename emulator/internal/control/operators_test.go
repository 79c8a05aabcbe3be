package control

import (
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/pipeline"
)

func TestSetOperators(t *testing.T) {
	e := newEnv(t)
	ops, err := pipeline.Parse([]byte(`[{"type":"Filter","condition":{"field":"x","op":"exists"}}]`))
	must(t, err)
	out, err := e.plane.SetOperators(e.ctx, e.admin, e.ref(), ops)
	must(t, err)
	if string(out) == "[]" || string(e.model().Operators) != string(out) {
		t.Fatalf("answered %s, stored %s: want the chain stored as answered", out, e.model().Operators)
	}
	if got, err := e.plane.Operators(e.ctx, e.viewer, e.ref()); err != nil || string(got) != string(out) {
		t.Fatalf("a viewer reads %s, %v", got, err)
	}
	_, err = e.plane.SetOperators(e.ctx, e.viewer, e.ref(), nil)
	wantError(t, err, 403, fabricerr.InsufficientPrivileges)
	cleared, err := e.plane.SetOperators(e.ctx, e.admin, e.ref(), nil)
	if err != nil || string(cleared) != "[]" || len(e.model().Operators) != 0 {
		t.Fatalf("clearing answered %s, %v; stored %s", cleared, err, e.model().Operators)
	}
	if e.changed() != 2 {
		t.Fatalf("OnChange saw %d changes, want 2", e.changed())
	}
}

func TestSetOperatorsRefusedUnderADefinition(t *testing.T) {
	e := newEnv(t)
	must(t, e.plane.UpdateDefinition(e.ctx, e.admin, e.ref(), DefinitionUpdate{Parts: derivedTopology(e.ws, e.lakehouse.ID, "hot")}))
	_, err := e.plane.SetOperators(e.ctx, e.admin, e.ref(), nil)
	wantError(t, err, 409, EventstreamHasDefinition)
}
