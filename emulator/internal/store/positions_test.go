package store

import (
	"context"
	"errors"
	"testing"
)

// TestSourcePositionsSurviveReopenAndGoWithTheItem: a CDC source's saved
// position reads back after a reopen, a put replaces it, and deleting the
// Eventstream deletes its sources' positions.
func TestSourcePositionsSurviveReopenAndGoWithTheItem(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := bufferStore(t, dir)
	if _, err := s.SourcePosition(ctx, "es", "src"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no position yet: got %v, want ErrNotFound", err)
	}
	for _, pos := range []string{`{"lsn":"0/10"}`, `{"lsn":"0/20"}`} {
		if err := s.PutSourcePosition(ctx, "es", "src", pos); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s = bufferStore(t, dir)
	if got, err := s.SourcePosition(ctx, "es", "src"); err != nil || got != `{"lsn":"0/20"}` {
		t.Fatalf("after reopen: got %q, %v; want the last put", got, err)
	}
	if err := s.DeleteItem(ctx, "es"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SourcePosition(ctx, "es", "src"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after the item went: got %v, want ErrNotFound", err)
	}
}
