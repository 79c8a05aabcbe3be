// Package store keeps the emulator's metadata (workspaces, role assignments
// and items) in SQLite (modernc.org/sqlite, pure Go), so a restart with the
// same data directory finds everything it had.
//
// The store knows nothing about HTTP or Kafka: it validates nothing beyond
// its own constraints (unique names, existing parents) and reports those as
// ErrNotFound and ErrConflict.
package store

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// Sentinel errors.
var (
	// ErrNotFound means the row asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict means a uniqueness rule was broken (a display name in use).
	ErrConflict = errors.New("conflict")
)

// Store is the metadata database. It is safe for concurrent use.
type Store struct {
	db handle
}

const schema = `
CREATE TABLE IF NOT EXISTS workspaces (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT,
	id           TEXT NOT NULL UNIQUE,
	display_name TEXT NOT NULL,
	description  TEXT NOT NULL DEFAULT '',
	capacity_id  TEXT NOT NULL DEFAULT '',
	created_at   TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS workspaces_name ON workspaces(display_name COLLATE NOCASE);
CREATE TABLE IF NOT EXISTS role_assignments (
	seq            INTEGER PRIMARY KEY AUTOINCREMENT,
	workspace_id   TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
	principal_id   TEXT NOT NULL,
	principal_type TEXT NOT NULL,
	role           TEXT NOT NULL,
	UNIQUE(workspace_id, principal_id)
);
CREATE TABLE IF NOT EXISTS items (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT,
	id           TEXT NOT NULL UNIQUE,
	workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
	type         TEXT NOT NULL,
	display_name TEXT NOT NULL,
	description  TEXT NOT NULL DEFAULT '',
	properties   TEXT NOT NULL DEFAULT '{}',
	created_at   TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS items_name ON items(workspace_id, type, display_name COLLATE NOCASE);
CREATE TABLE IF NOT EXISTS item_definitions (
	item_id TEXT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
	format  TEXT NOT NULL DEFAULT '',
	parts   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS destinations (
	seq            INTEGER PRIMARY KEY AUTOINCREMENT,
	id             TEXT NOT NULL UNIQUE,
	eventstream_id TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
	type           TEXT NOT NULL,
	workspace_id   TEXT NOT NULL,
	item_id        TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
	target         TEXT NOT NULL,
	spec           TEXT NOT NULL DEFAULT '{}',
	created_at     TEXT NOT NULL,
	UNIQUE(eventstream_id, type, item_id, target)
);
CREATE TABLE IF NOT EXISTS triggers (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT,
	id           TEXT NOT NULL UNIQUE,
	reflex_id    TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
	body         TEXT NOT NULL,
	created_at   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS job_instances (
	seq            INTEGER PRIMARY KEY AUTOINCREMENT,
	id             TEXT NOT NULL UNIQUE,
	workspace_id   TEXT NOT NULL,
	item_id        TEXT NOT NULL,
	job_type       TEXT NOT NULL,
	invoke_type    TEXT NOT NULL,
	status         TEXT NOT NULL,
	start_time     TEXT NOT NULL DEFAULT '',
	end_time       TEXT NOT NULL DEFAULT '',
	failure        TEXT NOT NULL DEFAULT '',
	trigger_event  TEXT NOT NULL DEFAULT '',
	dedupe_key     TEXT UNIQUE,
	created_at     TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS journals (
	destination_id TEXT PRIMARY KEY REFERENCES destinations(id) ON DELETE CASCADE,
	seq            INTEGER NOT NULL,
	offsets        TEXT NOT NULL,
	state          BLOB,
	pending        BLOB
);
CREATE INDEX IF NOT EXISTS job_instances_item ON job_instances(item_id, seq);
CREATE TABLE IF NOT EXISTS endpoint_keys (
	node_id        TEXT PRIMARY KEY,
	eventstream_id TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
	key_name       TEXT NOT NULL UNIQUE,
	primary_key    TEXT NOT NULL,
	secondary_key  TEXT NOT NULL,
	created_at     TEXT NOT NULL
);
`

// Open opens (creating if needed) the database in dir/metadata.db, readable
// by its owner only (it holds secrets; see makePrivate). An empty dir opens
// a private in-memory database.
func Open(dir string) (*Store, error) {
	dsn := "file::memory:"
	if dir != "" {
		path := filepath.Join(dir, "metadata.db")
		if err := makePrivate(path); err != nil {
			return nil, err
		}
		dsn = "file:" + path
	}
	db, err := sql.Open("sqlite", dsn+"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, fmt.Errorf("open metadata db: %w", err)
	}
	// One connection: SQLite serialises writers anyway, and an in-memory
	// database exists per connection.
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema + dataConnectionsSchema + insightsSchema + bufferSchema + clockSchema + positionsSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("create metadata schema: %w", err)
	}
	if err := migrateDataConnections(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate metadata schema: %w", err)
	}
	return &Store{db: handle{db: db, cache: newReadCache()}}, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Page is a keyset page request: rows after the sequence number After, at
// most Limit of them (all when Limit <= 0).
type Page struct {
	After int64
	Limit int
}

// clause returns the SQL tail and args for p over the seq column.
func (p Page) clause() (string, []any) {
	q := " AND seq > ? ORDER BY seq"
	args := []any{p.After}
	if p.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, p.Limit+1) // one more tells whether a next page exists
	}
	return q, args
}

// trim cuts a result fetched with clause to the page size and returns the
// cursor of the next page, or 0 on the last page.
func trim[T any](rows []T, seqs []int64, p Page) ([]T, int64) {
	if p.Limit > 0 && len(rows) > p.Limit {
		return rows[:p.Limit], seqs[p.Limit-1]
	}
	return rows, 0
}

func isUnique(err error) bool {
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}
