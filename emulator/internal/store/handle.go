package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// handle is the store's only way to its database. Every statement that is
// not a SELECT, and every transaction, moves the read cache to a new
// generation before it starts and again when it has ended (committed,
// rolled back or failed), so no answer read before a write is served after
// it (see cache.go). Reads go through unchanged.
type handle struct {
	db    *sql.DB
	cache *readCache
}

// ExecContext runs a statement that writes.
func (h handle) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	h.cache.bump()
	defer h.cache.bump()
	return h.db.ExecContext(ctx, query, args...)
}

// QueryContext runs a query; one that is not a SELECT counts as a write.
func (h handle) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if !isSelect(query) {
		h.cache.bump()
		defer h.cache.bump()
	}
	return h.db.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query of one row; one that is not a SELECT counts
// as a write.
func (h handle) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if !isSelect(query) {
		h.cache.bump()
		defer h.cache.bump()
	}
	return h.db.QueryRowContext(ctx, query, args...)
}

// Close closes the database.
func (h handle) Close() error { return h.db.Close() }

// isSelect tells whether query starts with the keyword SELECT (a WITH
// clause may lead to a write, so it counts as one).
func isSelect(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n")
	return len(q) >= 6 && strings.EqualFold(q[:6], "SELECT")
}

// tx runs fn in a transaction, committed when fn returns nil. The cache
// moves on before the transaction begins and after it ends, whatever fn
// did inside it.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	s.db.cache.bump()
	defer s.db.cache.bump()
	tx, err := s.db.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
