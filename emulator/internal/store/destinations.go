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

// Destination binds an Eventstream to a target: a table of a Lakehouse or an
// Eventhouse, or a Reflex. Target is the table name ("" for a Reflex); Spec
// holds type-specific settings (for an Eventhouse, its database).
type Destination struct {
	ID            string
	EventstreamID string
	Type          string
	WorkspaceID   string // the target item's workspace
	ItemID        string
	Target        string
	Spec          json.RawMessage
	CreatedAt     time.Time
}

const destCols = `id, eventstream_id, type, workspace_id, item_id, target, spec, created_at`

func scanDest(sc interface{ Scan(...any) error }) (Destination, error) {
	var d Destination
	var spec, created string
	err := sc.Scan(&d.ID, &d.EventstreamID, &d.Type, &d.WorkspaceID, &d.ItemID, &d.Target, &spec, &created)
	d.Spec = json.RawMessage(spec)
	d.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	return d, err
}

// CreateDestination inserts d. Binding the same (eventstream, type, item,
// target) twice is ErrConflict; use FindDestination to make a re-bind idempotent.
func (s *Store) CreateDestination(ctx context.Context, d Destination) error {
	if len(d.Spec) == 0 {
		d.Spec = json.RawMessage("{}")
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO destinations(`+destCols+`) VALUES(?,?,?,?,?,?,?,?)`,
		d.ID, d.EventstreamID, d.Type, d.WorkspaceID, d.ItemID, d.Target, string(d.Spec), d.CreatedAt.UTC().Format(time.RFC3339Nano))
	switch {
	case isUnique(err):
		return ErrConflict
	case err != nil && strings.Contains(err.Error(), "FOREIGN KEY constraint failed"):
		return ErrNotFound
	case err != nil:
		return fmt.Errorf("insert destination: %w", err)
	}
	return nil
}

// UpdateDestinationSpec replaces a destination's spec.
func (s *Store) UpdateDestinationSpec(ctx context.Context, id string, spec json.RawMessage) error {
	res, err := s.db.ExecContext(ctx, `UPDATE destinations SET spec = ? WHERE id = ?`, string(spec), id)
	if err != nil {
		return fmt.Errorf("update destination: %w", err)
	}
	return affected(res)
}

// FindDestination returns the binding of (eventstream, type, item, target), or ErrNotFound.
func (s *Store) FindDestination(ctx context.Context, eventstreamID, typ, itemID, target string) (Destination, error) {
	d, err := scanDest(s.db.QueryRowContext(ctx, `SELECT `+destCols+` FROM destinations WHERE eventstream_id = ? AND type = ? AND item_id = ? AND target = ?`,
		eventstreamID, typ, itemID, target))
	if errors.Is(err, sql.ErrNoRows) {
		return d, ErrNotFound
	}
	return d, err
}

// GetDestination returns the destination with id, or ErrNotFound.
func (s *Store) GetDestination(ctx context.Context, id string) (Destination, error) {
	d, err := scanDest(s.db.QueryRowContext(ctx, `SELECT `+destCols+` FROM destinations WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return d, ErrNotFound
	}
	return d, err
}

// ListDestinations returns the destinations of an Eventstream, or of every
// Eventstream when eventstreamID is empty, in binding order.
func (s *Store) ListDestinations(ctx context.Context, eventstreamID string) ([]Destination, error) {
	if eventstreamID == "" {
		return s.queryDests(ctx, "1 = 1")
	}
	return s.queryDests(ctx, "eventstream_id = ?", eventstreamID)
}

// ListDestinationsOfItem returns the destinations that target item id.
func (s *Store) ListDestinationsOfItem(ctx context.Context, itemID string) ([]Destination, error) {
	return s.queryDests(ctx, "item_id = ?", itemID)
}

func (s *Store) queryDests(ctx context.Context, where string, args ...any) ([]Destination, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+destCols+` FROM destinations WHERE `+where+` ORDER BY seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("list destinations: %w", err)
	}
	defer rows.Close()
	var out []Destination
	for rows.Next() {
		d, err := scanDest(rows)
		if err != nil {
			return nil, fmt.Errorf("list destinations: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// DeleteDestination removes the destination with id.
func (s *Store) DeleteDestination(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM destinations WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete destination: %w", err)
	}
	return affected(res)
}
