package cdc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// pgConnect opens a connection to o's database (a replication one when
// replication), mapping the failures a user can fix to their codes.
func pgConnect(ctx context.Context, c Conn, replication bool) (*pgconn.PgConn, error) {
	cfg, err := pgconn.ParseConfig("sslmode=prefer connect_timeout=5")
	if err != nil {
		return nil, err
	}
	cfg.Host, cfg.Port, cfg.Database, cfg.User, cfg.Password = c.Host, uint16(c.Port), c.Database, c.User, c.Password
	for _, fb := range cfg.Fallbacks { // sslmode=prefer: TLS first, then the same address without
		fb.Host, fb.Port = c.Host, uint16(c.Port)
	}
	if replication {
		cfg.RuntimeParams["replication"] = "database"
	}
	cfg.RuntimeParams["application_name"] = "fabric-emulator-cdc"
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgconn.ConnectConfig(cctx, cfg)
	if err != nil {
		return nil, pgError(err, c)
	}
	return conn, nil
}

// pgError gives a PostgreSQL failure its code when it has one.
func pgError(err error, c Conn) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000":
			return fail(CodeAuthenticationFailed, "PostgreSQL at %s refused user %q: %s", c.addr(), c.User, pe.Message)
		case "3D000":
			return fail(CodeDatabaseNotFound, "PostgreSQL at %s has no database %q", c.addr(), c.Database)
		case "42501":
			return fail(CodePermissionDenied, "user %q lacks a privilege on PostgreSQL at %s: %s", c.User, c.addr(), pe.Message)
		case "55000":
			if strings.Contains(pe.Message, "wal_level") {
				return fail(CodeLogicalReplicationDisabled, "PostgreSQL at %s: %s", c.addr(), pe.Message)
			}
		}
		return fmt.Errorf("postgresql at %s: %w", c.addr(), err)
	}
	var ne net.Error
	if errors.As(err, &ne) || strings.Contains(err.Error(), "connect: connection refused") || strings.Contains(err.Error(), "dial error") {
		return fail(CodeServerUnreachable, "nothing answers at %s: %v", c.addr(), err)
	}
	return fmt.Errorf("postgresql at %s: %w", c.addr(), err)
}

// pgQuery runs sql with text parameters and returns the rows as text
// (nil for NULL).
func pgQuery(ctx context.Context, conn *pgconn.PgConn, sql string, args ...string) ([][]*string, error) {
	params := make([][]byte, len(args))
	for i, a := range args {
		params[i] = []byte(a)
	}
	res := conn.ExecParams(ctx, sql, params, nil, nil, nil).Read()
	if res.Err != nil {
		return nil, res.Err
	}
	out := make([][]*string, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = make([]*string, len(r))
		for j, v := range r {
			if v != nil {
				s := string(v)
				out[i][j] = &s
			}
		}
	}
	return out, nil
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteLiteral quotes a PostgreSQL string literal.
func quoteLiteral(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// qualified is schema.table quoted.
func (t tableRef) pgQuoted() string { return quoteIdent(t.Schema) + "." + quoteIdent(t.Name) }
