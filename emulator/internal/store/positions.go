package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// positionsSchema keeps where a change-data-capture source is in its
// database's log (a PostgreSQL LSN, a MySQL binlog file and position or
// GTID set), so a restart resumes there. The position is opaque here: the
// source that saved it reads it. A source's position goes with its
// Eventstream.
const positionsSchema = `
CREATE TABLE IF NOT EXISTS source_positions (
	eventstream_id TEXT NOT NULL,
	source_id      TEXT NOT NULL,
	position       TEXT NOT NULL,
	PRIMARY KEY (eventstream_id, source_id)
);
CREATE TRIGGER IF NOT EXISTS source_positions_item_deleted AFTER DELETE ON items
BEGIN
	DELETE FROM source_positions WHERE eventstream_id = old.id;
END;
`

// SourcePosition returns the saved position of source src of Eventstream
// es, or ErrNotFound.
func (s *Store) SourcePosition(ctx context.Context, es, src string) (string, error) {
	var pos string
	err := s.db.QueryRowContext(ctx, `SELECT position FROM source_positions WHERE eventstream_id = ? AND source_id = ?`, es, src).Scan(&pos)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	} else if err != nil {
		return "", fmt.Errorf("read source position: %w", err)
	}
	return pos, nil
}

// PutSourcePosition saves the position of source src of Eventstream es.
func (s *Store) PutSourcePosition(ctx context.Context, es, src, pos string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO source_positions(eventstream_id, source_id, position) VALUES(?,?,?)
		ON CONFLICT(eventstream_id, source_id) DO UPDATE SET position = excluded.position`, es, src, pos)
	if err != nil {
		return fmt.Errorf("save source position: %w", err)
	}
	return nil
}

// DeleteSourcePosition forgets the position of source src of Eventstream es.
func (s *Store) DeleteSourcePosition(ctx context.Context, es, src string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM source_positions WHERE eventstream_id = ? AND source_id = ?`, es, src); err != nil {
		return fmt.Errorf("delete source position: %w", err)
	}
	return nil
}
