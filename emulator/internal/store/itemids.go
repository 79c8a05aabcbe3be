package store

import (
	"context"
	"fmt"
)

// ItemIDsOfType returns the ids of every item of type typ, in every
// workspace, in creation order (for work a server restarts at start-up).
func (s *Store) ItemIDsOfType(ctx context.Context, typ string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM items WHERE type = ? COLLATE NOCASE ORDER BY seq`, typ)
	if err != nil {
		return nil, fmt.Errorf("list %s ids: %w", typ, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list %s ids: %w", typ, err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list %s ids: %w", typ, err)
	}
	return out, nil
}
