package eventstream

import (
	"encoding/json"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
)

// CDC sources the emulator runs: change data capture from PostgreSQL and
// MySQL (fabric-rest-api-specs eventstream source.json:
// PostgreSQLCDCSourceProperties, MySQLCDCSourceProperties). The other CDC
// types stay refused (no local server for them).
const (
	PostgreSQLCDCType = "PostgreSQLCDC"
	MySQLCDCType      = "MySQLCDC"
)

// CDCSourceTypes are the CDC source types the emulator runs.
var CDCSourceTypes = []string{PostgreSQLCDCType, MySQLCDCType}

// CDCSource are a CDC source's properties, as its definition was decoded
// when stored (the compiler checked and canonicalised them).
type CDCSource struct {
	DataConnectionID string `json:"dataConnectionId"`
	// TableName is the tables, comma-separated, "schema.table" or "table".
	TableName           string `json:"tableName"`
	Port                int    `json:"port,omitempty"`
	SnapshotMode        string `json:"snapshotMode,omitempty"`
	DecimalHandlingMode string `json:"decimalHandlingMode,omitempty"`
	// PostgreSQL.
	SlotName                  string `json:"slotName,omitempty"`
	PublicationName           string `json:"publicationName,omitempty"`
	PublicationAutoCreateMode string `json:"publicationAutoCreateMode,omitempty"`
	// MySQL.
	ServerID            int64  `json:"serverId,omitempty"`
	SnapshotLockingMode string `json:"snapshotLockingMode,omitempty"`
	// Name is the source node's name: source.name in its events.
	Name string `json:"name"`
}

// CDCSourceOf reads the properties of CDC source node n.
func CDCSourceOf(n *definition.Node) CDCSource {
	return CDCSource{
		DataConnectionID:          strings.ToLower(n.Str("dataConnectionId")),
		TableName:                 n.Str("tableName"),
		Port:                      int(numberProp(n, "port")),
		SnapshotMode:              n.Str("snapshotMode"),
		DecimalHandlingMode:       n.Str("decimalHandlingMode"),
		SlotName:                  n.Str("slotName"),
		PublicationName:           n.Str("publicationName"),
		PublicationAutoCreateMode: n.Str("publicationAutoCreateMode"),
		ServerID:                  numberProp(n, "serverId"),
		SnapshotLockingMode:       n.Str("snapshotLockingMode"),
		Name:                      n.Name,
	}
}

// numberProp is a whole-number property of n (0 when absent or not one).
func numberProp(n *definition.Node, key string) int64 {
	switch v := n.Props[key].(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
	case float64:
		if v == float64(int64(v)) {
			return int64(v)
		}
	case int:
		return int64(v)
	case int64:
		return v
	}
	return 0
}
