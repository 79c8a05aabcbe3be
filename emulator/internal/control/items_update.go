package control

import (
	"context"
	"errors"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// ItemUpdate renames or redescribes an item (what it sets).
type ItemUpdate struct {
	DisplayName *string `json:"displayName"`
	Description *string `json:"description"`
}

// UpdateItem applies req to item ref; who must be a Contributor.
func (p *Plane) UpdateItem(ctx context.Context, who Caller, ref ItemRef, req ItemUpdate) (store.Item, error) {
	it, err := p.Item(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return it, err
	}
	if req.DisplayName != nil {
		if err := ValidName(it.Type, *req.DisplayName); err != nil {
			return it, err
		}
		it.DisplayName = *req.DisplayName
	}
	if req.Description != nil {
		if err := ValidDescription(*req.Description); err != nil {
			return it, err
		}
		it.Description = *req.Description
	}
	return it, p.storeItem(ctx, it)
}

// storeItem updates it in the store; a name in use is refused.
func (p *Plane) storeItem(ctx context.Context, it store.Item) error {
	if err := p.cfg.Store.UpdateItem(ctx, it); errors.Is(err, store.ErrConflict) {
		return NameInUse(it.Type, it.DisplayName)
	} else if err != nil {
		return err
	}
	return nil
}

// PlatformMetadata is the metadata of a definition's .platform part.
type PlatformMetadata struct {
	Type        string `json:"type"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
}

// ItemDefinitionUpdate is updateDefinition of a stored (not run) item: the
// decoded definition and, when the call updates metadata and the
// definition has a .platform part, its metadata.
type ItemDefinitionUpdate struct {
	Definition store.Definition
	Metadata   *PlatformMetadata
}

// UpdateItemDefinition stores req's definition on item ref (who must be a
// Contributor), renaming and describing it as req.Metadata says.
func (p *Plane) UpdateItemDefinition(ctx context.Context, who Caller, ref ItemRef, req ItemDefinitionUpdate) error {
	it, err := p.Item(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return err
	}
	if md := req.Metadata; md != nil {
		if md.Type != "" && !strings.EqualFold(md.Type, it.Type) {
			return fabricerr.BadParameter("definition.parts[.platform].metadata.type", "%q is not this item's type %s", md.Type, it.Type)
		}
		if md.DisplayName != "" {
			if err := ValidName(it.Type, md.DisplayName); err != nil {
				return err
			}
			it.DisplayName = md.DisplayName
		}
		if err := ValidDescription(md.Description); err != nil {
			return err
		}
		it.Description = md.Description
		if err := p.storeItem(ctx, it); err != nil {
			return err
		}
	}
	return p.cfg.Store.PutDefinition(ctx, it.ID, req.Definition)
}
