package cdc

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// DefaultPublication is the publication a source without publicationName
// uses (Debezium's default name).
const DefaultPublication = "dbz_publication"

// Publication auto-create modes (publicationAutoCreateMode).
const (
	PublicationFiltered  = "Filtered"
	PublicationAllTables = "AllTables"
	PublicationDisabled  = "Disabled"
)

// CodePublicationNotFound: publicationAutoCreateMode is Disabled and the
// publication does not exist.
const CodePublicationNotFound = "CDCPublicationNotFound"

// pgCheckServer fails with CodeLogicalReplicationDisabled unless the
// server's wal_level is logical.
func pgCheckServer(ctx context.Context, conn *pgconn.PgConn, c Conn) error {
	rows, err := pgQuery(ctx, conn, "SELECT current_setting('wal_level')")
	if err != nil {
		return pgError(err, c)
	}
	if lvl := *rows[0][0]; lvl != "logical" {
		return fail(CodeLogicalReplicationDisabled, "PostgreSQL at %s has wal_level=%s; logical replication needs wal_level=logical (and a restart)", c.addr(), lvl)
	}
	return nil
}

// pgTable is a captured table: its name and primary key columns.
type pgTable struct {
	tableRef
	key []string
}

// pgResolveTables checks that each table exists and reads its primary key.
func pgResolveTables(ctx context.Context, conn *pgconn.PgConn, c Conn, refs []tableRef) ([]pgTable, error) {
	out := make([]pgTable, 0, len(refs))
	for _, t := range refs {
		rows, err := pgQuery(ctx, conn, `SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')`, t.Schema, t.Name)
		if err != nil {
			return nil, pgError(err, c)
		}
		if len(rows) == 0 {
			return nil, fail(CodeTableNotFound, "table %s does not exist in database %s at %s", t, c.Database, c.addr())
		}
		keys, err := pgQuery(ctx, conn, `SELECT a.attname FROM pg_index i
			JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
			WHERE i.indrelid = $1::oid AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`, *rows[0][0])
		if err != nil {
			return nil, pgError(err, c)
		}
		pt := pgTable{tableRef: t}
		for _, k := range keys {
			pt.key = append(pt.key, *k[0])
		}
		out = append(out, pt)
	}
	return out, nil
}

// pgEnsurePublication makes the publication hold the tables, as mode says:
// Filtered (default) creates it for the tables or adds the missing ones,
// AllTables creates it FOR ALL TABLES, Disabled only checks it exists.
func pgEnsurePublication(ctx context.Context, conn *pgconn.PgConn, c Conn, name, mode string, tables []pgTable) error {
	rows, err := pgQuery(ctx, conn, "SELECT puballtables FROM pg_publication WHERE pubname = $1", name)
	if err != nil {
		return pgError(err, c)
	}
	exists := len(rows) > 0
	all := exists && *rows[0][0] == "t"
	quoted := make([]string, len(tables))
	for i, t := range tables {
		quoted[i] = t.pgQuoted()
	}
	var stmt string
	switch {
	case mode == PublicationDisabled && !exists:
		return fail(CodePublicationNotFound, "publication %q does not exist and publicationAutoCreateMode is Disabled; CREATE PUBLICATION %s FOR TABLE %s", name, quoteIdent(name), strings.Join(quoted, ", "))
	case mode == PublicationDisabled || all:
		return nil
	case mode == PublicationAllTables && !exists:
		stmt = "CREATE PUBLICATION " + quoteIdent(name) + " FOR ALL TABLES"
	case !exists:
		stmt = "CREATE PUBLICATION " + quoteIdent(name) + " FOR TABLE " + strings.Join(quoted, ", ")
	default:
		var missing []string
		for i, t := range tables {
			in, err := pgQuery(ctx, conn, "SELECT 1 FROM pg_publication_tables WHERE pubname = $1 AND schemaname = $2 AND tablename = $3", name, t.Schema, t.Name)
			if err != nil {
				return pgError(err, c)
			}
			if len(in) == 0 {
				missing = append(missing, quoted[i])
			}
		}
		if len(missing) == 0 {
			return nil
		}
		stmt = "ALTER PUBLICATION " + quoteIdent(name) + " ADD TABLE " + strings.Join(missing, ", ")
	}
	if err := conn.Exec(ctx, stmt).Close(); err != nil {
		return fmt.Errorf("%s: %w", stmt, pgError(err, c))
	}
	return nil
}

// pgSlotExists reports whether the logical slot exists in the database.
func pgSlotExists(ctx context.Context, conn *pgconn.PgConn, c Conn, slot string) (bool, error) {
	rows, err := pgQuery(ctx, conn, "SELECT plugin FROM pg_replication_slots WHERE slot_name = $1 AND database = current_database()", slot)
	if err != nil {
		return false, pgError(err, c)
	}
	return len(rows) > 0, nil
}
