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
const dataConnectionsSchema = `
CREATE TABLE IF NOT EXISTS data_connections (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	id         TEXT NOT NULL UNIQUE,
	spec       TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
`

// DataConnection is a registered connection: Spec is its JSON as the API
// accepted it (the store does not interpret it).
type DataConnection struct {
	ID        string
	Spec      json.RawMessage
	UpdatedAt time.Time
}

// PutDataConnection creates or replaces the connection c.ID and reports
// whether it was created.
func (s *Store) PutDataConnection(ctx context.Context, c DataConnection) (bool, error) {
	created := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM data_connections WHERE id = ?`, c.ID).Scan(&n); err != nil {
			return err
		}
		created = n == 0
		_, err := tx.ExecContext(ctx, `INSERT INTO data_connections(id, spec, updated_at) VALUES(?,?,?)
			ON CONFLICT(id) DO UPDATE SET spec = excluded.spec, updated_at = excluded.updated_at`,
			c.ID, string(c.Spec), c.UpdatedAt.UTC().Format(time.RFC3339Nano))
		return err
	})
	if err != nil {
		return false, fmt.Errorf("put data connection: %w", err)
	}
	return created, nil
}

// GetDataConnection returns the connection id, or ErrNotFound.
func (s *Store) GetDataConnection(ctx context.Context, id string) (DataConnection, error) {
	c := DataConnection{ID: id}
	var spec, updated string
	err := s.db.QueryRowContext(ctx, `SELECT spec, updated_at FROM data_connections WHERE id = ?`, id).Scan(&spec, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNotFound
	} else if err != nil {
		return c, fmt.Errorf("read data connection: %w", err)
	}
	c.Spec = json.RawMessage(spec)
	c.UpdatedAt, _ = time.Parse(time.RFC3339Nano, updated)
	return c, nil
}

// ListDataConnections returns every connection in registration order.
func (s *Store) ListDataConnections(ctx context.Context) ([]DataConnection, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, spec, updated_at FROM data_connections ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("list data connections: %w", err)
	}
	defer rows.Close()
	var out []DataConnection
	for rows.Next() {
		var c DataConnection
		var spec, updated string
		if err := rows.Scan(&c.ID, &spec, &updated); err != nil {
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

// DeleteDataConnection removes the connection id, or reports ErrNotFound.
func (s *Store) DeleteDataConnection(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM data_connections WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete data connection: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
