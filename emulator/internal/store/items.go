package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Item is a workspace item of any type. Properties holds the type-specific
// state as JSON (for an Eventstream: its streams and their topics).
type Item struct {
	ID          string
	WorkspaceID string
	Type        string
	DisplayName string
	Description string
	Properties  json.RawMessage
	CreatedAt   time.Time
}

const itemCols = `seq, id, workspace_id, type, display_name, description, properties, created_at`

func scanItem(sc interface{ Scan(...any) error }) (Item, int64, error) {
	var it Item
	var seq int64
	var props, created string
	err := sc.Scan(&seq, &it.ID, &it.WorkspaceID, &it.Type, &it.DisplayName, &it.Description, &props, &created)
	it.Properties = json.RawMessage(props)
	it.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	return it, seq, err
}

// CreateItem inserts it. A display name already used by an item of the same
// type in the workspace (case-insensitive) is ErrConflict; a missing
// workspace is ErrNotFound.
func (s *Store) CreateItem(ctx context.Context, it Item) error {
	if len(it.Properties) == 0 {
		it.Properties = json.RawMessage("{}")
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO items(id, workspace_id, type, display_name, description, properties, created_at) VALUES(?,?,?,?,?,?,?)`,
		it.ID, it.WorkspaceID, it.Type, it.DisplayName, it.Description, string(it.Properties), it.CreatedAt.UTC().Format(time.RFC3339Nano))
	switch {
	case isUnique(err):
		return ErrConflict
	case err != nil && strings.Contains(err.Error(), "FOREIGN KEY constraint failed"):
		return ErrNotFound
	case err != nil:
		return fmt.Errorf("insert item: %w", err)
	}
	return nil
}

// GetItem returns the item with id, in any workspace, or ErrNotFound.
// It is served from the read cache while the store has not been written
// since it was read (cache.go); each caller gets its own Properties.
func (s *Store) GetItem(ctx context.Context, id string) (Item, error) {
	k := cacheKey{kind: cachedItem, a: id}
	if v, ok := s.db.cache.get(k); ok {
		return v.(Item).clone(), nil
	}
	g := s.db.cache.now()
	it, _, err := scanItem(s.db.QueryRowContext(ctx, `SELECT `+itemCols+` FROM items WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return it, ErrNotFound
	} else if err == nil {
		s.db.cache.put(k, it.clone(), g)
	}
	return it, err
}

// clone is it with a copy of its Properties, which a caller may change.
func (it Item) clone() Item {
	it.Properties = append(json.RawMessage(nil), it.Properties...)
	return it
}

// ListItems returns a page of the workspace's items, of type typ unless it is empty.
func (s *Store) ListItems(ctx context.Context, workspaceID, typ string, p Page) ([]Item, int64, error) {
	q := `SELECT ` + itemCols + ` FROM items WHERE workspace_id = ?`
	args := []any{workspaceID}
	if typ != "" {
		q += ` AND type = ? COLLATE NOCASE`
		args = append(args, typ)
	}
	tail, targs := p.clause()
	rows, err := s.db.QueryContext(ctx, q+tail, append(args, targs...)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list items: %w", err)
	}
	defer rows.Close()
	var out []Item
	var seqs []int64
	for rows.Next() {
		it, seq, err := scanItem(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("list items: %w", err)
		}
		out, seqs = append(out, it), append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list items: %w", err)
	}
	out, next := trim(out, seqs, p)
	return out, next, nil
}

// UpdateItem stores it's display name, description and properties.
func (s *Store) UpdateItem(ctx context.Context, it Item) error {
	res, err := s.db.ExecContext(ctx, `UPDATE items SET display_name = ?, description = ?, properties = ? WHERE id = ?`,
		it.DisplayName, it.Description, string(it.Properties), it.ID)
	if isUnique(err) {
		return ErrConflict
	} else if err != nil {
		return fmt.Errorf("update item: %w", err)
	}
	return affected(res)
}

// DeleteItem removes the item with id.
func (s *Store) DeleteItem(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM items WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete item: %w", err)
	}
	return affected(res)
}
