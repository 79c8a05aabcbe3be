package store

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

// TestDefinitionsStoredAsSentAndGoWithTheirItem: a definition's parts come
// back in order and unchanged, across a reopen; a replaced definition
// replaces every part; deleting the item deletes its definition; an item
// that does not exist has none to store.
func TestDefinitionsStoredAsSentAndGoWithTheirItem(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	newWorkspace(t, s, "w", "w")
	if err := s.CreateItem(ctx, Item{ID: "pl", WorkspaceID: "w", Type: "DataPipeline", DisplayName: "pl"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetDefinition(ctx, "pl"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no definition yet: %v", err)
	}
	def := Definition{Format: "", Parts: []DefinitionPart{
		{Path: "pipeline-content.json", Payload: "eyJhIjoxfQ==", PayloadType: "InlineBase64"},
		{Path: ".platform", Payload: "e30=", PayloadType: "InlineBase64"},
	}}
	if err := s.PutDefinition(ctx, "pl", def); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.GetDefinition(ctx, "pl"); err != nil || !reflect.DeepEqual(got, def) {
		t.Fatalf("after reopen: %+v, %v", got, err)
	}
	next := Definition{Format: "x", Parts: []DefinitionPart{{Path: "pipeline-content.json", Payload: "e30=", PayloadType: "InlineBase64"}}}
	if err := s.PutDefinition(ctx, "pl", next); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetDefinition(ctx, "pl"); !reflect.DeepEqual(got, next) {
		t.Fatalf("replaced: %+v", got)
	}
	if err := s.DeleteItem(ctx, "pl"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetDefinition(ctx, "pl"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the definition outlived its item: %v", err)
	}
	if err := s.PutDefinition(ctx, "nope", next); !errors.Is(err, ErrNotFound) {
		t.Fatalf("definition of a missing item: %v", err)
	}
}
