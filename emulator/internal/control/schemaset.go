package control

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/schemaset"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// eventSchema reads the Avro schema ref names from the definition of the
// Event Schema Set it names in workspace ws, which who must be able to
// read. Every failure says which part of ref is at fault.
func (p *Plane) eventSchema(ctx context.Context, who Caller, ws string, ref definition.SchemaRef) (string, error) {
	if err := p.Require(ctx, who, ws, store.RoleViewer); err != nil {
		return "", err
	}
	it, err := p.cfg.Store.GetItem(ctx, ref.EventSchemaSetID)
	if errors.Is(err, store.ErrNotFound) || err == nil && (it.WorkspaceID != ws || !strings.EqualFold(it.Type, "EventSchemaSet")) {
		return "", fmt.Errorf("eventSchemaSetId %s is not an Event Schema Set of workspace %s", ref.EventSchemaSetID, ws)
	} else if err != nil {
		return "", err
	}
	def, err := p.cfg.Store.GetDefinition(ctx, it.ID)
	if errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("the Event Schema Set %s has no definition (no schemas)", ref.EventSchemaSetID)
	} else if err != nil {
		return "", err
	}
	for _, part := range def.Parts {
		if part.Path != schemaset.PartPath {
			continue
		}
		set, err := schemaset.Decode(part.Payload)
		if err != nil {
			return "", fmt.Errorf("the Event Schema Set %s: %w", ref.EventSchemaSetID, err)
		}
		return set.Find(ref.SchemaName, ref.Version)
	}
	return "", fmt.Errorf("the Event Schema Set %s has no %s part", ref.EventSchemaSetID, schemaset.PartPath)
}
