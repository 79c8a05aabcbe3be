package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func newWorkspace(t *testing.T, s *Store, id, name string) {
	t.Helper()
	err := s.CreateWorkspace(context.Background(), Workspace{ID: id, DisplayName: name, CreatedAt: time.Now()},
		RoleAssignment{WorkspaceID: id, PrincipalID: "p", PrincipalType: "User", Role: RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDataConnectionOwnership: a put never moves a connection to another
// workspace, a delete names the owner, a deleted workspace takes its
// connections with it, and a database made before connections had a
// workspace opens with its rows owned by none, claimable once.
func TestDataConnectionOwnership(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "metadata.db"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = old.Exec(`CREATE TABLE data_connections (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, spec TEXT NOT NULL, updated_at TEXT NOT NULL);
		INSERT INTO data_connections(id, spec, updated_at) VALUES('legacy', '{"bootstrapServers":"h:1"}', '2026-01-01T00:00:00Z')`)
	if err != nil || old.Close() != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	newWorkspace(t, s, "ws-a", "a")
	newWorkspace(t, s, "ws-b", "b")

	if c, err := s.GetDataConnection(ctx, "legacy"); err != nil || c.WorkspaceID != "" {
		t.Fatalf("legacy row: %+v, %v", c, err)
	}
	if l, _ := s.ListDataConnections(ctx, []string{"ws-a", "ws-b"}); len(l) != 0 {
		t.Fatalf("a legacy row is listed in a workspace: %+v", l)
	}
	put := func(ws, id string) (bool, error) {
		return s.PutDataConnection(ctx, DataConnection{ID: id, WorkspaceID: ws, Spec: []byte(`{}`), UpdatedAt: time.Now()})
	}
	if created, err := put("ws-a", "legacy"); err != nil || created {
		t.Fatalf("claim: created %v, %v", created, err)
	}
	if _, err := put("ws-b", "legacy"); !errors.Is(err, ErrConflict) {
		t.Fatalf("moved to another workspace: %v", err)
	}
	if err := s.DeleteDataConnection(ctx, "ws-b", "legacy"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted by another workspace: %v", err)
	}
	if created, err := put("ws-b", "b-conn"); err != nil || !created {
		t.Fatalf("register: %v %v", created, err)
	}
	if l, _ := s.ListDataConnections(ctx, []string{"ws-b"}); len(l) != 1 || l[0].ID != "b-conn" || l[0].WorkspaceID != "ws-b" {
		t.Fatalf("list of ws-b: %+v", l)
	}
	if err := s.DeleteWorkspace(ctx, "ws-b"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetDataConnection(ctx, "b-conn"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the connection of a deleted workspace remains: %v", err)
	}
	if err := s.DeleteDataConnection(ctx, "ws-a", "legacy"); err != nil {
		t.Fatal(err)
	}
}

// TestOpenMakesDatabasePrivate: the database and the files SQLite keeps
// beside it are 0600, whatever the umask, also when an older version left
// them world-readable.
func TestOpenMakesDatabasePrivate(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"metadata.db", "metadata.db-wal", "metadata.db-shm"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	newWorkspace(t, s, "ws", "w") // a write: the WAL is in use
	for _, f := range []string{"metadata.db", "metadata.db-wal", "metadata.db-shm"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil || fi.Mode().Perm() != privateMode {
			t.Errorf("%s: %v (%v), want %v", f, fi.Mode().Perm(), err, privateMode)
		}
	}
}
