package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Trigger is an Activator rule on a Reflex; Body is its JSON as the API
// accepted it (the store does not interpret it).
type Trigger struct {
	ID        string
	ReflexID  string
	Body      json.RawMessage
	CreatedAt time.Time
}

// CreateTrigger inserts t; a missing Reflex is ErrNotFound.
func (s *Store) CreateTrigger(ctx context.Context, t Trigger) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO triggers(id, reflex_id, body, created_at) VALUES(?,?,?,?)`,
		t.ID, t.ReflexID, string(t.Body), t.CreatedAt.UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("insert trigger: %w", err)
	}
	return nil
}

// GetTrigger returns the trigger with id, or ErrNotFound.
func (s *Store) GetTrigger(ctx context.Context, id string) (Trigger, error) {
	t := Trigger{ID: id}
	var body, created string
	err := s.db.QueryRowContext(ctx, `SELECT reflex_id, body, created_at FROM triggers WHERE id = ?`, id).Scan(&t.ReflexID, &body, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return t, ErrNotFound
	} else if err != nil {
		return t, fmt.Errorf("read trigger: %w", err)
	}
	t.Body = json.RawMessage(body)
	t.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	return t, nil
}

// ListTriggers returns the triggers of a Reflex in creation order.
func (s *Store) ListTriggers(ctx context.Context, reflexID string) ([]Trigger, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, body, created_at FROM triggers WHERE reflex_id = ? ORDER BY seq`, reflexID)
	if err != nil {
		return nil, fmt.Errorf("list triggers: %w", err)
	}
	defer rows.Close()
	var out []Trigger
	for rows.Next() {
		t := Trigger{ReflexID: reflexID}
		var body, created string
		if err := rows.Scan(&t.ID, &body, &created); err != nil {
			return nil, fmt.Errorf("list triggers: %w", err)
		}
		t.Body = json.RawMessage(body)
		t.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		out = append(out, t)
	}
	return out, rows.Err()
}

// UpdateTrigger replaces a trigger's body.
func (s *Store) UpdateTrigger(ctx context.Context, t Trigger) error {
	res, err := s.db.ExecContext(ctx, `UPDATE triggers SET body = ? WHERE id = ?`, string(t.Body), t.ID)
	if err != nil {
		return fmt.Errorf("update trigger: %w", err)
	}
	return affected(res)
}

// DeleteTrigger removes a trigger.
func (s *Store) DeleteTrigger(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM triggers WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete trigger: %w", err)
	}
	return affected(res)
}
