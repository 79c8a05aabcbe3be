package control

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// KQLDatabaseProps is what a KQL database item stores as its properties;
// the service URIs are rendered from the engine the emulator is attached to.
type KQLDatabaseProps struct {
	ParentEventhouseItemID string `json:"parentEventhouseItemId"`
	DatabaseType           string `json:"databaseType"`
}

// DecodeKQLDatabase reads a KQL database item's properties (none: zero).
func DecodeKQLDatabase(it store.Item) (KQLDatabaseProps, error) {
	var p KQLDatabaseProps
	if len(it.Properties) == 0 {
		return p, nil
	}
	if err := json.Unmarshal(it.Properties, &p); err != nil {
		return p, fmt.Errorf("decode KQL database %s: %w", it.ID, err)
	}
	return p, nil
}

// DatabasesOf lists the KQL databases of an Eventhouse.
func (p *Plane) DatabasesOf(ctx context.Context, eh store.Item) ([]store.Item, error) {
	var out []store.Item
	items, _, err := p.cfg.Store.ListItems(ctx, eh.WorkspaceID, TypeKQLDatabase, store.Page{})
	if err != nil {
		return nil, err
	}
	for _, db := range items {
		if props, _ := DecodeKQLDatabase(db); props.ParentEventhouseItemID == eh.ID { // one that does not decode is no Eventhouse's
			out = append(out, db)
		}
	}
	return out, nil
}
