package control

import (
	"context"
	"errors"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

func TestRemoveItemForgetsEverything(t *testing.T) {
	e := newEnv(t)
	must(t, e.plane.UpdateDefinition(e.ctx, e.admin, e.ref(), DefinitionUpdate{Parts: derivedTopology(e.ws, e.lakehouse.ID, "hot")}))
	es, err := e.st.GetItem(e.ctx, e.es.ID)
	must(t, err)
	released := false
	must(t, e.plane.RemoveItem(e.ctx, es, func(context.Context) error { released = true; return nil }))
	if _, err := e.st.GetItem(e.ctx, e.es.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the item is still there: %v", err)
	}
	if ds, err := e.st.ListDestinations(e.ctx, e.es.ID); err != nil || len(ds) != 0 {
		t.Fatalf("bindings left %+v, %v", ds, err)
	}
	if !released || e.changed() < 2 {
		t.Fatalf("release called %v, OnChange saw %d changes", released, e.changed())
	}
}

func TestRemoveItemStopsAtRelease(t *testing.T) {
	e := newEnv(t)
	boom := errors.New("boom")
	if err := e.plane.RemoveItem(e.ctx, e.lakehouse, func(context.Context) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("got %v, want release's error", err)
	}
	if _, err := e.st.GetItem(e.ctx, e.lakehouse.ID); err != nil {
		t.Fatalf("an item whose release failed was deleted: %v", err)
	}
}
