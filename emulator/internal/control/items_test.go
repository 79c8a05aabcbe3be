package control

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

func TestDeleteEventstreamForgetsItsBindings(t *testing.T) {
	e := newEnv(t)
	must(t, e.plane.UpdateDefinition(e.ctx, e.admin, e.ref(), DefinitionUpdate{Parts: derivedTopology(e.ws, e.lakehouse.ID, "hot")}))
	wantError(t, e.plane.DeleteItem(e.ctx, e.viewer, e.ref()), 403, fabricerr.InsufficientPrivileges)
	before := e.changed()
	must(t, e.plane.DeleteItem(e.ctx, e.admin, e.ref()))
	if _, err := e.st.GetItem(e.ctx, e.es.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the item is still there: %v", err)
	}
	if ds, err := e.st.ListDestinations(e.ctx, e.es.ID); err != nil || len(ds) != 0 {
		t.Fatalf("bindings left %+v, %v", ds, err)
	}
	if e.changed() != before+1 {
		t.Fatalf("OnChange saw %d changes for the delete, want 1", e.changed()-before)
	}
}

func TestRemoveItemReleasesWhatItsKindHolds(t *testing.T) {
	e := newEnv(t)
	dir := e.plane.LakehouseDir(e.lakehouse)
	must(t, os.MkdirAll(dir+"/Tables", 0o755))
	must(t, e.plane.RemoveItem(e.ctx, e.lakehouse))
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the Lakehouse's files are still there: %v", err)
	}

	eh := store.Item{ID: uuid.NewString(), WorkspaceID: e.ws, Type: TypeEventhouse, DisplayName: "eh"}
	must(t, e.st.CreateItem(e.ctx, eh))
	props, err := json.Marshal(KQLDatabaseProps{ParentEventhouseItemID: eh.ID, DatabaseType: "ReadWrite"})
	must(t, err)
	db := store.Item{ID: uuid.NewString(), WorkspaceID: e.ws, Type: TypeKQLDatabase, DisplayName: "eh", Properties: props}
	must(t, e.st.CreateItem(e.ctx, db))
	must(t, e.plane.DeleteItem(e.ctx, e.admin, ItemRef{WorkspaceID: e.ws, ID: eh.ID}))
	if _, err := e.st.GetItem(e.ctx, db.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the Eventhouse's database is still there: %v", err)
	}
}

func FuzzDecodeKQLDatabase(f *testing.F) {
	f.Add([]byte(`{"parentEventhouseItemId":"x","databaseType":"ReadWrite"}`))
	f.Add([]byte(`{"databaseType":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		props, err := DecodeKQLDatabase(store.Item{ID: "db", Properties: b})
		if err != nil {
			return
		}
		again, _ := json.Marshal(props)
		back, err := DecodeKQLDatabase(store.Item{ID: "db", Properties: again})
		if err != nil || back != props {
			t.Fatalf("%s: decoded %+v, re-decoded %+v, %v", b, props, back, err)
		}
	})
}
