package api

import (
	"path/filepath"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// The type-specific properties the specs declare and the emulator can
// fill honestly: a Spark job definition's OneLake root (the item's
// directory under the OneLake dir, as a Lakehouse's paths are) and a
// Warehouse's dates (its connectionString is empty: the emulator serves no
// SQL endpoint).

var sparkJobDefinitionKind = kind{
	properties: func(a *API, it store.Item) any {
		return map[string]any{"oneLakeRootPath": filepath.Join(a.cfg.OneLakeDir, it.WorkspaceID, it.ID)}
	},
}

var warehouseKind = kind{
	properties: func(a *API, it store.Item) any {
		created := it.CreatedAt.UTC().Format(time.RFC3339)
		return map[string]any{"connectionString": "", "createdDate": created, "lastUpdatedTime": created, "collationType": "Latin1_General_100_BIN2_UTF8"}
	},
}
