package store

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"
)

// cachedStore is a store with workspace w (admin p, member m), Eventstream
// item es in it, and every cached look-up made twice, so the next read
// would come from the cache if nothing moved it on.
func cachedStore(t *testing.T) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	newWorkspace(t, s, "w", "w")
	if err := s.AddRole(ctx, RoleAssignment{WorkspaceID: "w", PrincipalID: "m", PrincipalType: "User", Role: RoleMember}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateItem(ctx, Item{ID: "es", WorkspaceID: "w", Type: "Eventstream", DisplayName: "es",
		Properties: json.RawMessage(`{"paused":false}`), CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := s.GetWorkspace(ctx, "w"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetItem(ctx, "es"); err != nil {
			t.Fatal(err)
		}
		if r, err := s.RoleOf(ctx, "w", "m"); err != nil || r != RoleMember {
			t.Fatalf("role of m: %v, %v", r, err)
		}
	}
	return s
}

// TestCachedLookupsSeeEveryWriteAtOnce: each write that changes what
// GetWorkspace, GetItem or RoleOf answer is seen by the very next look-up,
// the cache having served the old answer just before.
func TestCachedLookupsSeeEveryWriteAtOnce(t *testing.T) {
	ctx := context.Background()
	role := func(s *Store) Role {
		r, err := s.RoleOf(ctx, "w", "m")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	t.Run("role changed", func(t *testing.T) {
		s := cachedStore(t)
		if err := s.UpdateRole(ctx, RoleAssignment{WorkspaceID: "w", PrincipalID: "m", Role: RoleViewer}); err != nil {
			t.Fatal(err)
		}
		if r := role(s); r != RoleViewer {
			t.Fatalf("role after the update: %v", r)
		}
	})
	t.Run("role removed", func(t *testing.T) {
		s := cachedStore(t)
		if err := s.DeleteRole(ctx, "w", "m"); err != nil {
			t.Fatal(err)
		}
		if r := role(s); r != RoleNone {
			t.Fatalf("role after the removal: %v", r)
		}
	})
	t.Run("role added", func(t *testing.T) {
		s := cachedStore(t)
		if r := role2(t, s, "n"); r != RoleNone {
			t.Fatalf("n before: %v", r)
		}
		if err := s.AddRole(ctx, RoleAssignment{WorkspaceID: "w", PrincipalID: "n", PrincipalType: "User", Role: RoleViewer}); err != nil {
			t.Fatal(err)
		}
		if r := role2(t, s, "n"); r != RoleViewer {
			t.Fatalf("n after: %v", r)
		}
	})
	t.Run("item changed", func(t *testing.T) {
		s := cachedStore(t)
		it, _ := s.GetItem(ctx, "es")
		it.Properties = json.RawMessage(`{"paused":true}`)
		if err := s.UpdateItem(ctx, it); err != nil {
			t.Fatal(err)
		}
		if got, err := s.GetItem(ctx, "es"); err != nil || string(got.Properties) != `{"paused":true}` {
			t.Fatalf("item after the update: %s, %v", got.Properties, err)
		}
	})
	t.Run("item deleted", func(t *testing.T) {
		s := cachedStore(t)
		if err := s.DeleteItem(ctx, "es"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetItem(ctx, "es"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("item after the delete: %v", err)
		}
	})
	t.Run("workspace renamed", func(t *testing.T) {
		s := cachedStore(t)
		if err := s.UpdateWorkspace(ctx, Workspace{ID: "w", DisplayName: "w2"}); err != nil {
			t.Fatal(err)
		}
		if ws, err := s.GetWorkspace(ctx, "w"); err != nil || ws.DisplayName != "w2" {
			t.Fatalf("workspace after the rename: %+v, %v", ws, err)
		}
	})
	t.Run("workspace deleted with its items and roles", func(t *testing.T) {
		s := cachedStore(t)
		if err := s.DeleteWorkspace(ctx, "w"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetWorkspace(ctx, "w"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("workspace after the delete: %v", err)
		}
		if _, err := s.GetItem(ctx, "es"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("item after its workspace's delete: %v", err)
		}
		if r := role(s); r != RoleNone {
			t.Fatalf("role after its workspace's delete: %v", r)
		}
	})
}

func role2(t *testing.T, s *Store, principal string) Role {
	t.Helper()
	r, err := s.RoleOf(context.Background(), "w", principal)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCacheKeepsNoAnswerReadAcrossAWrite: an answer whose read began
// before a write (noted generation older than the current one) is not
// kept; a write by any path moves the generation, a read does not.
func TestCacheKeepsNoAnswerReadAcrossAWrite(t *testing.T) {
	ctx := context.Background()
	s := cachedStore(t)
	c := s.db.cache
	k := cacheKey{kind: cachedRole, a: "w", b: "x"}
	g := c.now()
	c.bump() // a write during the read
	c.put(k, RoleAdmin, g)
	if _, ok := c.get(k); ok {
		t.Fatal("an answer read across a write was kept")
	}

	moved := func(name string, f func() error) {
		t.Helper()
		before := c.now()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.now() == before {
			t.Fatalf("%s did not move the cache's generation", name)
		}
	}
	moved("ExecContext", func() error { return s.PutClockOffset(ctx, 0) })
	moved("a transaction", func() error {
		return s.PutInsights(ctx, map[string][]byte{"n": []byte(`{}`)})
	})
	moved("a query that writes", func() error {
		rows, err := s.db.QueryContext(ctx, `INSERT INTO emulator_clock(id, offset_ns) VALUES(1, 5) ON CONFLICT(id) DO UPDATE SET offset_ns = 5 RETURNING offset_ns`)
		if err == nil {
			rows.Close()
		}
		return err
	})
	moved("a row query that writes", func() error {
		var n int64
		return s.db.QueryRowContext(ctx, ` with x AS (SELECT 1) UPDATE emulator_clock SET offset_ns = 6 WHERE id = 1 RETURNING offset_ns`).Scan(&n)
	})
	before := c.now()
	if _, err := s.ListInsights(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetItem(ctx, "es"); err != nil {
		t.Fatal(err)
	}
	if c.now() != before {
		t.Fatal("a read moved the cache's generation")
	}
}

// TestCachedItemIsTheCallersOwn: changing the Properties of an item a
// look-up returned does not change what the next look-up returns.
func TestCachedItemIsTheCallersOwn(t *testing.T) {
	s := cachedStore(t)
	it, err := s.GetItem(context.Background(), "es")
	if err != nil {
		t.Fatal(err)
	}
	copy(it.Properties, `XXXXXXXXXX`)
	if again, _ := s.GetItem(context.Background(), "es"); string(again.Properties) != `{"paused":false}` {
		t.Fatalf("the cache kept a caller's change: %s", again.Properties)
	}
}

// TestCacheUnderConcurrentWrites: readers racing a writer that flips a
// role never see the old role once the writer's call has returned.
func TestCacheUnderConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	s := cachedStore(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.RoleOf(ctx, "w", "m"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := range 200 {
		want := []Role{RoleViewer, RoleContributor}[i%2]
		if err := s.UpdateRole(ctx, RoleAssignment{WorkspaceID: "w", PrincipalID: "m", Role: want}); err != nil {
			t.Fatal(err)
		}
		if r := role2(t, s, "m"); r != want {
			close(stop)
			wg.Wait()
			t.Fatalf("write %d: read %v after writing %v", i, r, want)
		}
	}
	close(stop)
	wg.Wait()
}
