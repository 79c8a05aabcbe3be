package control

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/google/uuid"
)

// derivedTopology: a CustomEndpoint source into the DefaultStream "main",
// a Filter, the DerivedStream "hot" behind it, read by a Lakehouse.
func derivedTopology(ws, lh, table string) definition.Parts {
	in := func(name string) []any { return []any{map[string]any{"name": name}} }
	t := map[string]any{
		"sources": []any{map[string]any{"name": "app", "type": "CustomEndpoint", "properties": map[string]any{}}},
		"streams": []any{
			map[string]any{"name": "main", "type": "DefaultStream", "properties": map[string]any{}, "inputNodes": in("app")},
			map[string]any{"name": "hot", "type": "DerivedStream", "properties": map[string]any{"inputSerialization": map[string]any{"type": "Json"}}, "inputNodes": in("warm")},
		},
		"operators": []any{map[string]any{"name": "warm", "type": "Filter", "inputNodes": in("main"), "properties": map[string]any{"conditions": []any{
			map[string]any{"column": map[string]any{"columnName": "temp"}, "operatorType": "GreaterThan", "value": map[string]any{"dataType": "BigInt", "value": "20"}},
		}}}},
		"destinations": []any{
			map[string]any{"name": "lake", "type": "Lakehouse", "properties": map[string]any{"workspaceId": ws, "itemId": lh, "deltaTable": table}, "inputNodes": in("hot")},
		},
	}
	b, err := json.Marshal(t)
	if err != nil {
		panic(err)
	}
	return definition.Parts{Topology: b}
}

func TestUpdateDefinitionAppliesThePlan(t *testing.T) {
	e := newEnv(t)
	req := DefinitionUpdate{Parts: derivedTopology(e.ws, e.lakehouse.ID, "hot")}
	must(t, e.plane.UpdateDefinition(e.ctx, e.admin, e.ref(), req))
	m := e.model()
	if len(m.Streams) != 2 || m.Streams[1].Type != eventstream.DerivedStreamType || m.Streams[1].Name != "hot" {
		t.Fatalf("streams %+v: want the DefaultStream and the DerivedStream hot", m.Streams)
	}
	if m.Definition == nil || len(m.CustomEndpoints()) != 1 {
		t.Fatalf("definition %v, custom endpoints %v: want the definition stored with its source", m.Definition, m.CustomEndpoints())
	}
	ds, err := e.plane.UserDestinations(e.ctx, e.es.ID)
	must(t, err)
	if len(ds) != 1 || ds[0].ItemID != e.lakehouse.ID || ds[0].Target != "hot" {
		t.Fatalf("destinations %+v: want the Lakehouse table hot", ds)
	}
	all, err := e.st.ListDestinations(e.ctx, e.es.ID)
	must(t, err)
	if len(all) != 2 || !Internal(all[0]) && !Internal(all[1]) {
		t.Fatalf("bindings %+v: want the Lakehouse and the DerivedStream's internal one", all)
	}
	if e.changed() != 1 {
		t.Fatalf("OnChange saw %d changes for one definition, want 1 (one store-then-Sync step)", e.changed())
	}

	// The same definition again keeps the destination; another table replaces it.
	must(t, e.plane.UpdateDefinition(e.ctx, e.admin, e.ref(), req))
	again, err := e.plane.UserDestinations(e.ctx, e.es.ID)
	must(t, err)
	if len(again) != 1 || again[0].ID != ds[0].ID {
		t.Fatalf("destinations after the same definition %+v, want %s kept", again, ds[0].ID)
	}
	must(t, e.plane.UpdateDefinition(e.ctx, e.admin, e.ref(), DefinitionUpdate{Parts: derivedTopology(e.ws, e.lakehouse.ID, "other")}))
	other, err := e.plane.UserDestinations(e.ctx, e.es.ID)
	must(t, err)
	if len(other) != 1 || other[0].ID == ds[0].ID || other[0].Target != "other" {
		t.Fatalf("destinations after a new table %+v, want one new destination", other)
	}
}

func TestUpdateDefinitionRefusesAndChangesNothing(t *testing.T) {
	e := newEnv(t)
	stranger := uuid.NewString()
	cases := []struct {
		name  string
		parts definition.Parts
		check func(t *testing.T, err error)
	}{
		{"unknown lakehouse", derivedTopology(e.ws, stranger, "hot"), func(t *testing.T, err error) {
			wantError(t, err, 404, fabricerr.ItemNotFound)
		}},
		{"bad table", derivedTopology(e.ws, e.lakehouse.ID, "no such table"), func(t *testing.T, err error) {
			wantError(t, err, 400, fabricerr.InvalidInput)
		}},
		{"not JSON", definition.Parts{Topology: []byte(`{"sources": 1`)}, func(t *testing.T, err error) {
			var r *definition.Refusal
			if !errors.As(err, &r) {
				t.Fatalf("got %v, want a *definition.Refusal", err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.check(t, e.plane.UpdateDefinition(e.ctx, e.admin, e.ref(), DefinitionUpdate{Parts: c.parts}))
		})
	}
	wantError(t, e.plane.UpdateDefinition(e.ctx, e.viewer, e.ref(), DefinitionUpdate{Parts: derivedTopology(e.ws, e.lakehouse.ID, "hot")}),
		403, fabricerr.InsufficientPrivileges)
	if m := e.model(); m.Definition != nil || len(m.Streams) != 1 || e.changed() != 0 {
		t.Fatalf("a refused definition changed the Eventstream: %+v", m)
	}
}

func TestUpdateDefinitionRemovesABindingThatCannotStart(t *testing.T) {
	e := newEnv(t)
	// The Lakehouse's directory is a file: its table cannot be opened.
	dir := e.plane.LakehouseDir(e.lakehouse)
	must(t, os.MkdirAll(filepath.Dir(dir), 0o755))
	must(t, os.WriteFile(dir, []byte("not a directory"), 0o644))
	err := e.plane.UpdateDefinition(e.ctx, e.admin, e.ref(), DefinitionUpdate{Parts: derivedTopology(e.ws, e.lakehouse.ID, "hot")})
	wantError(t, err, 502, "DestinationFailed")
	ds, lerr := e.plane.UserDestinations(e.ctx, e.es.ID)
	if lerr != nil || len(ds) != 0 {
		t.Fatalf("destinations %+v, %v: want the one that failed to start removed (error %v)", ds, lerr, err)
	}
}
