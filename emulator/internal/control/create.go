package control

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// Creation is an item checked by the door (its names, its kind's
// creationPayload) and what comes with it: an Eventstream's plan
// (PlanCreation) or another item's stored definition.
type Creation struct {
	Item       store.Item
	Plan       *definition.Plan
	Definition *store.Definition
}

// CreateItem stores c's item, provisions what its kind holds (an
// Eventstream's DefaultStream topic, a Lakehouse's directories, an
// Eventhouse's default database), stores its definition and applies its
// plan. A failure after the item is stored removes it again.
func (p *Plane) CreateItem(ctx context.Context, c Creation) (store.Item, error) {
	it := c.Item
	if err := p.cfg.Store.CreateItem(ctx, it); errors.Is(err, store.ErrConflict) {
		return it, NameInUse(it.Type, it.DisplayName)
	} else if err != nil {
		return it, err
	}
	if err := p.provision(ctx, &it); err != nil {
		_ = p.cfg.Store.DeleteItem(ctx, it.ID)
		return it, err
	}
	if c.Definition != nil {
		if err := p.cfg.Store.PutDefinition(ctx, it.ID, *c.Definition); err != nil {
			_ = p.RemoveItem(ctx, it)
			return it, err
		}
	}
	if c.Plan != nil {
		if err := p.ApplyPlan(ctx, &it, c.Plan); err != nil {
			_ = p.RemoveItem(ctx, it)
			return it, err
		}
	}
	return it, nil
}

// provision makes what item it's kind holds beyond the store.
func (p *Plane) provision(ctx context.Context, it *store.Item) error {
	switch it.Type {
	case TypeEventstream:
		return p.ProvisionEventstream(ctx, it)
	case TypeLakehouse:
		for _, sub := range []string{"Tables", "Files"} {
			if err := os.MkdirAll(filepath.Join(p.LakehouseDir(*it), sub), 0o700); err != nil {
				return err
			}
		}
	case TypeEventhouse:
		props, _ := json.Marshal(KQLDatabaseProps{ParentEventhouseItemID: it.ID, DatabaseType: "ReadWrite"})
		db := store.Item{ID: uuid.NewString(), WorkspaceID: it.WorkspaceID, Type: TypeKQLDatabase, DisplayName: it.DisplayName,
			Description: "Default database of Eventhouse " + it.DisplayName, Properties: props, CreatedAt: p.cfg.Now()}
		if err := p.cfg.Store.CreateItem(ctx, db); errors.Is(err, store.ErrConflict) {
			return NameInUse(TypeKQLDatabase, it.DisplayName)
		} else if err != nil {
			return err
		}
	}
	return nil
}

// SetKQLDatabase checks a KQL database's creationPayload props (Fabric's
// databaseType ReadWrite and the Eventhouse of it's workspace that holds
// it) and stores them as it's properties (not in the store).
func (p *Plane) SetKQLDatabase(ctx context.Context, it *store.Item, props KQLDatabaseProps) error {
	if props.DatabaseType != "ReadWrite" {
		return fabricerr.BadParameter("creationPayload.databaseType", "%q is not supported; want ReadWrite", props.DatabaseType)
	}
	parent, err := p.cfg.Store.GetItem(ctx, props.ParentEventhouseItemID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (parent.Type != TypeEventhouse || parent.WorkspaceID != it.WorkspaceID)) {
		return fabricerr.NotFound(fabricerr.ItemNotFound, "Eventhouse", props.ParentEventhouseItemID)
	} else if err != nil {
		return err
	}
	it.Properties, err = json.Marshal(props)
	return err
}
