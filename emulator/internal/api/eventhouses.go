package api

import (
	"context"
	"encoding/json"

	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// kqlDatabaseProps is what a KQL database stores (control.KQLDatabaseProps).
type kqlDatabaseProps = control.KQLDatabaseProps

// dbProps is a KQL database's properties; ones that do not decode are none.
func dbProps(it store.Item) kqlDatabaseProps {
	p, _ := control.DecodeKQLDatabase(it)
	return p
}

// eventhouseKind creates a default KQL database of the same name with every
// Eventhouse and deletes its databases with it.
var eventhouseKind = kind{
	properties: func(a *API, it store.Item) any {
		ids := []string{}
		if dbs, err := a.plane.DatabasesOf(context.Background(), it); err == nil {
			for _, db := range dbs {
				ids = append(ids, db.ID)
			}
		}
		return map[string]any{
			"queryServiceUri":         a.cfg.KQLURL,
			"ingestionServiceUri":     a.cfg.KQLURL,
			"databasesItemIds":        ids,
			"minimumConsumptionUnits": 0,
		}
	},
}

// kqlDatabaseKind needs creationPayload {databaseType: "ReadWrite",
// parentEventhouseItemId} as in Fabric.
var kqlDatabaseKind = kind{
	creation: func(a *API, c *call, it *store.Item, payload json.RawMessage) error {
		if len(payload) == 0 {
			return fabricerr.BadParameter("creationPayload", "is required for a KQLDatabase: {\"databaseType\": \"ReadWrite\", \"parentEventhouseItemId\": \"<guid>\"}")
		}
		var p kqlDatabaseProps
		if err := fabricerr.DecodeJSON(payload, &p); err != nil {
			return err
		}
		return a.plane.SetKQLDatabase(c.r.Context(), it, p)
	},
	properties: func(a *API, it store.Item) any {
		p := dbProps(it)
		return map[string]any{
			"parentEventhouseItemId": p.ParentEventhouseItemID,
			"databaseType":           p.DatabaseType,
			"queryServiceUri":        a.cfg.KQLURL,
			"ingestionServiceUri":    a.cfg.KQLURL,
		}
	},
}
