package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// dataConnectionsSchema holds the Kafka clusters that Eventstream sources
// name by dataConnectionId (Fabric connections, registered by hand here).
// workspace_id is the workspace that registered the connection; rows of a
// database older than that column have "" there: no workspace owns them.
const dataConnectionsSchema = `
CREATE TABLE IF NOT EXISTS data_connections (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT,
	id           TEXT NOT NULL UNIQUE,
	spec         TEXT NOT NULL,
	updated_at   TEXT NOT NULL,
	workspace_id TEXT NOT NULL DEFAULT ''
);
`

// dataConnectionsCascade deletes a workspace's connections with it (a
// column added by ALTER TABLE cannot hold a foreign key with a default).
const dataConnectionsCascade = `
CREATE TRIGGER IF NOT EXISTS data_connections_workspace_deleted AFTER DELETE ON workspaces
BEGIN
	DELETE FROM data_connections WHERE workspace_id = old.id;
END;
`

// migrateDataConnections adds workspace_id to a table made before it
// existed, and the trigger that needs it.
func migrateDataConnections(db *sql.DB) error {
	var n int
	err := db.QueryRow(`SELECT COUNT(*) FROM pragma_table_info('data_connections') WHERE name = 'workspace_id'`).Scan(&n)
	if err != nil {
		return err
	}
	if n == 0 {
		if _, err := db.Exec(`ALTER TABLE data_connections ADD COLUMN workspace_id TEXT NOT NULL DEFAULT ''`); err != nil {
			return err
		}
	}
	_, err = db.Exec(dataConnectionsCascade)
	return err
}

// DataConnection is a registered connection: Spec is its JSON as the API
// accepted it (the store does not interpret it); WorkspaceID owns it.
type DataConnection struct {
	ID          string
	WorkspaceID string
	Spec        json.RawMessage
	UpdatedAt   time.Time
}

// PutDataConnection creates the connection c.ID in c.WorkspaceID, or
// replaces it when that workspace owns it (or none does), and reports
// whether it was created. A connection of another workspace is left alone
// and reported as ErrConflict.
func (s *Store) PutDataConnection(ctx context.Context, c DataConnection) (bool, error) {
	created := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var owner string
		err := tx.QueryRowContext(ctx, `SELECT workspace_id FROM data_connections WHERE id = ?`, c.ID).Scan(&owner)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			created = true
		case err != nil:
			return err
		case owner != "" && owner != c.WorkspaceID:
			return ErrConflict
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO data_connections(id, workspace_id, spec, updated_at) VALUES(?,?,?,?)
			ON CONFLICT(id) DO UPDATE SET workspace_id = excluded.workspace_id, spec = excluded.spec, updated_at = excluded.updated_at`,
			c.ID, c.WorkspaceID, string(c.Spec), c.UpdatedAt.UTC().Format(time.RFC3339Nano))
		return err
	})
	if errors.Is(err, ErrConflict) {
		return false, err
	} else if err != nil {
		return false, fmt.Errorf("put data connection: %w", err)
	}
	return created, nil
}

// GetDataConnection returns the connection id, or ErrNotFound.
func (s *Store) GetDataConnection(ctx context.Context, id string) (DataConnection, error) {
	c := DataConnection{ID: id}
	var spec, updated string
	err := s.db.QueryRowContext(ctx, `SELECT workspace_id, spec, updated_at FROM data_connections WHERE id = ?`, id).Scan(&c.WorkspaceID, &spec, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNotFound
	} else if err != nil {
		return c, fmt.Errorf("read data connection: %w", err)
	}
	c.Spec = json.RawMessage(spec)
	c.UpdatedAt, _ = time.Parse(time.RFC3339Nano, updated)
	return c, nil
}

// ListDataConnections returns the connections of the workspaces
// workspaceIDs, in registration order.
func (s *Store) ListDataConnections(ctx context.Context, workspaceIDs []string) ([]DataConnection, error) {
	if len(workspaceIDs) == 0 {
		return nil, nil
	}
	ids, _ := json.Marshal(workspaceIDs)
	rows, err := s.db.QueryContext(ctx, `SELECT id, workspace_id, spec, updated_at FROM data_connections
		WHERE workspace_id IN (SELECT value FROM json_each(?)) ORDER BY seq`, string(ids))
	if err != nil {
		return nil, fmt.Errorf("list data connections: %w", err)
	}
	defer rows.Close()
	var out []DataConnection
	for rows.Next() {
		var c DataConnection
		var spec, updated string
		if err := rows.Scan(&c.ID, &c.WorkspaceID, &spec, &updated); err != nil {
			return nil, fmt.Errorf("list data connections: %w", err)
		}
		c.Spec = json.RawMessage(spec)
		c.UpdatedAt, _ = time.Parse(time.RFC3339Nano, updated)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list data connections: %w", err)
	}
	return out, nil
}

// DeleteDataConnection removes the connection id of workspace ws, or
// reports ErrNotFound (also when another workspace owns it).
func (s *Store) DeleteDataConnection(ctx context.Context, ws, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM data_connections WHERE id = ? AND workspace_id = ?`, id, ws)
	if err != nil {
		return fmt.Errorf("delete data connection: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
