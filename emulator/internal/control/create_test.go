package control

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

func TestCreateItemProvisionsItsKind(t *testing.T) {
	e := newEnv(t)
	lh, err := e.plane.CreateItem(e.ctx, Creation{Item: store.Item{ID: uuid.NewString(), WorkspaceID: e.ws, Type: TypeLakehouse, DisplayName: "lake"}})
	must(t, err)
	for _, sub := range []string{"Tables", "Files"} {
		if _, err := os.Stat(filepath.Join(e.plane.LakehouseDir(lh), sub)); err != nil {
			t.Fatalf("Lakehouse %s: %v", sub, err)
		}
	}
	eh, err := e.plane.CreateItem(e.ctx, Creation{Item: store.Item{ID: uuid.NewString(), WorkspaceID: e.ws, Type: TypeEventhouse, DisplayName: "house"}})
	must(t, err)
	dbs, err := e.plane.DatabasesOf(e.ctx, eh)
	if err != nil || len(dbs) != 1 || dbs[0].DisplayName != "house" {
		t.Fatalf("the Eventhouse's databases %+v, %v: want its default one", dbs, err)
	}
	_, err = e.plane.CreateItem(e.ctx, Creation{Item: store.Item{ID: uuid.NewString(), WorkspaceID: e.ws, Type: TypeLakehouse, DisplayName: "lake"}})
	wantError(t, err, 400, fabricerr.ItemDisplayNameAlreadyInUse)
}

func TestCreateEventstreamFromADefinition(t *testing.T) {
	e := newEnv(t)
	it := store.Item{ID: uuid.NewString(), WorkspaceID: e.ws, Type: TypeEventstream, DisplayName: "fromdef"}
	plan, err := e.plane.PlanCreation(e.ctx, e.admin, &it, derivedTopology(e.ws, e.lakehouse.ID, "hot"))
	must(t, err)
	it, err = e.plane.CreateItem(e.ctx, Creation{Item: it, Plan: plan})
	must(t, err)
	ds, err := e.plane.UserDestinations(e.ctx, it.ID)
	if err != nil || len(ds) != 1 || ds[0].Target != "hot" {
		t.Fatalf("destinations %+v, %v", ds, err)
	}
	// A second Eventstream of the same name is refused before anything runs.
	it2 := store.Item{ID: uuid.NewString(), WorkspaceID: e.ws, Type: TypeEventstream, DisplayName: "fromdef"}
	plan2, err := e.plane.PlanCreation(e.ctx, e.admin, &it2, derivedTopology(e.ws, e.lakehouse.ID, "hot"))
	must(t, err)
	_, err = e.plane.CreateItem(e.ctx, Creation{Item: it2, Plan: plan2})
	wantError(t, err, 400, fabricerr.ItemDisplayNameAlreadyInUse)

	_, err = e.plane.PlanCreation(e.ctx, e.viewer, &it2, derivedTopology(e.ws, e.lakehouse.ID, "hot"))
	wantError(t, err, 403, fabricerr.InsufficientPrivileges)
}

func TestSetKQLDatabase(t *testing.T) {
	e := newEnv(t)
	db := store.Item{ID: uuid.NewString(), WorkspaceID: e.ws, Type: TypeKQLDatabase, DisplayName: "db"}
	wantError(t, e.plane.SetKQLDatabase(e.ctx, &db, KQLDatabaseProps{DatabaseType: "ReadOnly"}), 400, fabricerr.InvalidInput)
	wantError(t, e.plane.SetKQLDatabase(e.ctx, &db, KQLDatabaseProps{DatabaseType: "ReadWrite", ParentEventhouseItemID: e.lakehouse.ID}), 404, fabricerr.ItemNotFound)
}
