package control

import (
	"testing"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

func TestUpdateItemChecksItsKindsNames(t *testing.T) {
	e := newEnv(t)
	lh := ItemRef{WorkspaceID: e.ws, ID: e.lakehouse.ID}
	bad, good := "has space", "has_underscore"
	_, err := e.plane.UpdateItem(e.ctx, e.admin, lh, ItemUpdate{DisplayName: &bad})
	wantError(t, err, 400, fabricerr.InvalidInput)
	it, err := e.plane.UpdateItem(e.ctx, e.admin, lh, ItemUpdate{DisplayName: &good})
	if err != nil || it.DisplayName != good {
		t.Fatalf("rename: %+v, %v", it, err)
	}
	taken := "es"
	_, err = e.plane.UpdateItem(e.ctx, e.admin, ItemRef{WorkspaceID: e.ws, ID: e.es.ID}, ItemUpdate{DisplayName: &bad})
	if err != nil {
		t.Fatalf("an Eventstream takes the generic rule: %v", err)
	}
	other := store.Item{ID: "x-" + e.es.ID, WorkspaceID: e.ws, Type: TypeEventstream, DisplayName: "other"}
	must(t, e.st.CreateItem(e.ctx, other))
	_, err = e.plane.UpdateItem(e.ctx, e.admin, ItemRef{WorkspaceID: e.ws, ID: other.ID}, ItemUpdate{DisplayName: &bad})
	wantError(t, err, 400, fabricerr.ItemDisplayNameAlreadyInUse)
	_, err = e.plane.UpdateItem(e.ctx, e.viewer, lh, ItemUpdate{DisplayName: &taken})
	wantError(t, err, 403, fabricerr.InsufficientPrivileges)
}

func TestUpdateItemDefinitionRenames(t *testing.T) {
	e := newEnv(t)
	nb := store.Item{ID: "nb-" + e.es.ID, WorkspaceID: e.ws, Type: "Notebook", DisplayName: "nb"}
	must(t, e.st.CreateItem(e.ctx, nb))
	ref := ItemRef{WorkspaceID: e.ws, ID: nb.ID}
	def := store.Definition{Parts: []store.DefinitionPart{{Path: "notebook-content.py", Payload: "eA==", PayloadType: "InlineBase64"}}}
	err := e.plane.UpdateItemDefinition(e.ctx, e.admin, ref, ItemDefinitionUpdate{Definition: def, Metadata: &PlatformMetadata{Type: "Report"}})
	wantError(t, err, 400, fabricerr.InvalidInput)
	must(t, e.plane.UpdateItemDefinition(e.ctx, e.admin, ref, ItemDefinitionUpdate{Definition: def, Metadata: &PlatformMetadata{DisplayName: "renamed", Description: "d"}}))
	it, err := e.st.GetItem(e.ctx, nb.ID)
	if err != nil || it.DisplayName != "renamed" || it.Description != "d" {
		t.Fatalf("after the update: %+v, %v", it, err)
	}
	stored, err := e.st.GetDefinition(e.ctx, nb.ID)
	if err != nil || len(stored.Parts) != 1 {
		t.Fatalf("stored definition %+v, %v", stored, err)
	}
}
