package cdc

import (
	"context"
	"fmt"
	"strings"
)

// Snapshot modes (snapshotMode).
const (
	SnapshotInitial     = "Initial"
	SnapshotInitialOnly = "InitialOnly"
	SnapshotNoData      = "NoData"
)

// Decimal handling modes (decimalHandlingMode).
const (
	DecimalPrecise = "Precise"
	DecimalDouble  = "Double"
	DecimalString  = "String"
)

// Conn is where the database is and who connects.
type Conn struct {
	Host     string
	Port     int
	Database string
	User     string
	Password string
}

// Options are a CDC source's settings.
type Options struct {
	Conn
	// Name is source.name in the events (Debezium's topic prefix): the
	// source node's name.
	Name string
	// Tables are the tables to capture, "schema.table" or "table" (the
	// default schema: public on PostgreSQL, the connection's database on
	// MySQL).
	Tables []string
	// SnapshotMode is Initial (default), InitialOnly or NoData.
	SnapshotMode string
	// DecimalHandling is Precise (default), Double or String.
	DecimalHandling string
	// PostgreSQL: the slot, the publication and how it is made.
	SlotName, PublicationName, PublicationMode string
	// MySQL: the replica server id the binlog reader presents, and how
	// the snapshot locks (Minimal, default; Extended; None).
	ServerID        uint32
	SnapshotLocking string
}

// SplitTables splits a tableName property: tables separated by commas.
func SplitTables(s string) []string {
	var out []string
	for t := range strings.SplitSeq(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// Positions keeps a source's position across restarts.
type Positions interface {
	// Load returns the saved position, "" when none.
	Load(ctx context.Context) (string, error)
	// Save saves pos.
	Save(ctx context.Context, pos string) error
}

// Sink takes events, in order; it returns once they are durable (or fails).
type Sink func(ctx context.Context, evs []Event) error

// tableRef is a table's schema and name.
type tableRef struct{ Schema, Name string }

func (t tableRef) String() string { return t.Schema + "." + t.Name }

// parseTables resolves names against the default schema def.
func parseTables(names []string, def string) ([]tableRef, error) {
	if len(names) == 0 {
		return nil, fail(CodeTableNotFound, "the source names no table")
	}
	out := make([]tableRef, 0, len(names))
	for _, n := range names {
		schema, table, ok := strings.Cut(n, ".")
		if !ok {
			schema, table = def, n
		}
		schema, table = unquote(schema), unquote(table)
		if schema == "" || table == "" {
			return nil, fail(CodeTableNotFound, "%q is not a table name (want schema.table or table)", n)
		}
		out = append(out, tableRef{schema, table})
	}
	return out, nil
}

// unquote drops one level of SQL quotes ("x" or `x`).
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '`' && s[len(s)-1] == '`') {
		return s[1 : len(s)-1]
	}
	return s
}

// addr is host:port.
func (c Conn) addr() string { return fmt.Sprintf("%s:%d", c.Host, c.Port) }
