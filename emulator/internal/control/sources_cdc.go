package control

import (
	"context"
	"errors"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/cdc"
	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// checkCDCSource checks a PostgreSQLCDC or MySQLCDC node of workspace ws
// (fabric-rest-api-specs eventstream source.json: dataConnectionId and
// tableName required, slotName for PostgreSQL, serverId for MySQL; the
// enums canonicalised): its connection must be registered in ws as a
// database connection. Whether the tables exist is the running source's
// business (a missing table is a Failed source, as in Fabric).
func (p *Plane) checkCDCSource(ctx context.Context, ws string, n *definition.Node) error {
	required := []string{"dataConnectionId", "tableName"}
	if n.Type == eventstream.PostgreSQLCDCType {
		required = append(required, "slotName")
	}
	for _, field := range required {
		if strings.TrimSpace(n.Str(field)) == "" {
			return definition.BadNode(n, "properties."+field, "required")
		}
	}
	if len(cdc.SplitTables(n.Str("tableName"))) == 0 {
		return definition.BadNode(n, "properties.tableName", "names no table; want schema.table, or several separated by commas")
	}
	c := eventstream.CDCSourceOf(n)
	if n.Type == eventstream.MySQLCDCType && (c.ServerID <= 0 || c.ServerID > 1<<32-1) {
		return definition.BadNode(n, "properties.serverId", "required: a replica server id from 1 to 4294967295, unique among the server's replicas")
	}
	if _, ok := n.Props["port"]; ok && (c.Port <= 0 || c.Port > 65535) {
		return definition.BadNode(n, "properties.port", "%v is not a port number", n.Props["port"])
	}
	enums := map[string][]string{
		"snapshotMode":        {cdc.SnapshotInitial, cdc.SnapshotInitialOnly, cdc.SnapshotNoData},
		"decimalHandlingMode": {cdc.DecimalPrecise, cdc.DecimalDouble, cdc.DecimalString},
	}
	if n.Type == eventstream.MySQLCDCType {
		enums["snapshotLockingMode"] = []string{cdc.LockingMinimal, cdc.LockingExtended, cdc.LockingNone}
	}
	if n.Type == eventstream.PostgreSQLCDCType {
		enums["publicationAutoCreateMode"] = []string{cdc.PublicationFiltered, cdc.PublicationAllTables, cdc.PublicationDisabled}
	}
	for field, allowed := range enums {
		v := n.Str(field)
		if v == "" {
			continue
		}
		canon, ok := OneOf(v, allowed)
		if !ok {
			return definition.BadNode(n, "properties."+field, "%q is not one of %s", v, strings.Join(allowed, ", "))
		}
		n.Props[field] = canon
	}
	conn, err := p.rt.DataConnection(ctx, ws, c.DataConnectionID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return definition.BadNode(n, "properties.dataConnectionId",
			"connection %q is not registered in this workspace (Fabric connections do not exist locally); register the database first with "+
				`PUT /v1/_emulator/connections/%s {"workspaceId":"%s","server":"host[:port]","database":"…","username":"…","password":"…"}`,
			c.DataConnectionID, c.DataConnectionID, ws)
	case err != nil:
		return err
	case conn.Server == "":
		return definition.BadNode(n, "properties.dataConnectionId", "connection %q is not a database connection; a %s source needs one registered with server and database", c.DataConnectionID, n.Type)
	}
	n.Raw["properties"] = n.Props
	return nil
}
