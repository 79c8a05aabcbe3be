package store

import (
	"context"
	"database/sql"
	"fmt"
)

// insightsSchema keeps each Eventstream node's data insights (its counters
// and recent runtime logs, as JSON) across restarts.
const insightsSchema = `
CREATE TABLE IF NOT EXISTS node_insights (
  node_id TEXT PRIMARY KEY,
  state TEXT NOT NULL
);
`

// PutInsights saves the data insights of the given nodes (node id to its
// JSON state), replacing what was saved, in one transaction.
func (s *Store) PutInsights(ctx context.Context, states map[string][]byte) error {
	if len(states) == 0 {
		return nil
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		for id, st := range states {
			_, err := tx.ExecContext(ctx, `INSERT INTO node_insights(node_id, state) VALUES(?, ?)
				ON CONFLICT(node_id) DO UPDATE SET state = excluded.state`, id, string(st))
			if err != nil {
				return fmt.Errorf("save data insights: %w", err)
			}
		}
		return nil
	})
}

// ListInsights returns every saved node's data insights (node id to its
// JSON state).
func (s *Store) ListInsights(ctx context.Context) (map[string][]byte, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT node_id, state FROM node_insights`)
	if err != nil {
		return nil, fmt.Errorf("read data insights: %w", err)
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var id, st string
		if err := rows.Scan(&id, &st); err != nil {
			return nil, fmt.Errorf("read data insights: %w", err)
		}
		out[id] = []byte(st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read data insights: %w", err)
	}
	return out, nil
}

// ListItemsOfType returns every item of type typ in every workspace (the
// emulator's metrics exposition reads all Eventstreams).
func (s *Store) ListItemsOfType(ctx context.Context, typ string) ([]Item, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+itemCols+` FROM items WHERE type = ? COLLATE NOCASE ORDER BY seq`, typ)
	if err != nil {
		return nil, fmt.Errorf("list items: %w", err)
	}
	defer rows.Close()
	var out []Item
	for rows.Next() {
		it, _, err := scanItem(rows)
		if err != nil {
			return nil, fmt.Errorf("list items: %w", err)
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list items: %w", err)
	}
	return out, nil
}
