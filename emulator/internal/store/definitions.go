package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// DefinitionPart is one part of an item definition, kept exactly as sent.
type DefinitionPart struct {
	Path        string `json:"path"`
	Payload     string `json:"payload"`
	PayloadType string `json:"payloadType"`
}

// Definition is an item's stored definition: its format ("" for the
// default) and its parts in the order they were sent.
type Definition struct {
	Format string
	Parts  []DefinitionPart
}

// PutDefinition stores def as the definition of item itemID, replacing any
// before it; a missing item is ErrNotFound.
func (s *Store) PutDefinition(ctx context.Context, itemID string, def Definition) error {
	parts, err := json.Marshal(def.Parts)
	if err != nil {
		return fmt.Errorf("encode definition: %w", err)
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO item_definitions(item_id, format, parts) VALUES(?,?,?)
		ON CONFLICT(item_id) DO UPDATE SET format = excluded.format, parts = excluded.parts`, itemID, def.Format, string(parts))
	switch {
	case err != nil && strings.Contains(err.Error(), "FOREIGN KEY constraint failed"):
		return ErrNotFound
	case err != nil:
		return fmt.Errorf("store definition: %w", err)
	}
	return nil
}

// GetDefinition returns the stored definition of item itemID, or ErrNotFound.
func (s *Store) GetDefinition(ctx context.Context, itemID string) (Definition, error) {
	var def Definition
	var parts string
	err := s.db.QueryRowContext(ctx, `SELECT format, parts FROM item_definitions WHERE item_id = ?`, itemID).Scan(&def.Format, &parts)
	if errors.Is(err, sql.ErrNoRows) {
		return def, ErrNotFound
	} else if err != nil {
		return def, fmt.Errorf("read definition: %w", err)
	}
	if err := json.Unmarshal([]byte(parts), &def.Parts); err != nil {
		return def, fmt.Errorf("decode definition: %w", err)
	}
	return def, nil
}
