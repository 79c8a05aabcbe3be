package delta

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/rows"
)

// ErrTxnCommitted is returned (wrapped) by Append when the table already
// records, for one of the batch's Txn app ids, a version at least as high as
// the batch's: the batch, or an overlapping one, was committed before (for
// example before a crash), so nothing is written.
var ErrTxnCommitted = errors.New("delta: transaction already committed")

// ErrNoColumns is returned by Append when a batch would create a table but
// none of its rows has a field: a Delta table needs at least one column.
var ErrNoColumns = errors.New("delta: rows have no fields to make columns of")

// SchemaConflictError reports a value that the table's column cannot hold
// without changing the column's type, which Delta at protocol (1,2) does not
// allow. Append returns it before writing anything.
type SchemaConflictError struct {
	// Field is the path of the value: the member name, with "." before a
	// struct member and "[]" for array elements ("price", "order.items[].qty").
	Field string
	// TableType is the column's Delta type in the table ("long").
	TableType string
	// EventType is the type inferred for the conflicting value ("string").
	EventType string
	// Row is the index of the conflicting row in the batch.
	Row int
}

// Error names the field, the column's type and the value's type.
func (e *SchemaConflictError) Error() string {
	return fmt.Sprintf("field %q is %s in the table but %s in row %d of the batch",
		e.Field, e.TableType, e.EventType, e.Row)
}

// DuplicateFieldError reports a row with two member names that map to one
// column: Delta column names are unique case-insensitively, and characters
// Spark rejects in names are replaced by '_'. Append returns it before
// writing anything.
type DuplicateFieldError struct {
	// Field and Other are the two member names, as paths like
	// SchemaConflictError.Field.
	Field, Other string
	// Column is the name of the column both map to.
	Column string
	// Row is the index of the row in the batch.
	Row int
}

// Error names both members and the column they map to.
func (e *DuplicateFieldError) Error() string {
	return fmt.Sprintf("fields %q and %q of row %d both map to column %q",
		e.Field, e.Other, e.Row, e.Column)
}

// RowLimitError reports a row that breaks one of package rows' limits (a
// value nested deeper than rows.MaxDepth, a member name no column may
// have): a table holding it could not be read by Spark or delta-rs, so
// Append returns it before writing anything.
type RowLimitError struct {
	// Err names the field and the limit.
	Err *rows.LimitError
	// Row is the index of the row in the batch.
	Row int
}

// Error names the row, the field and the limit.
func (e *RowLimitError) Error() string {
	return fmt.Sprintf("row %d of the batch: %v", e.Row, e.Err)
}

// Unwrap returns the *rows.LimitError.
func (e *RowLimitError) Unwrap() error { return e.Err }

// joinPath prepends a path element (a member name, or "[]") to a path.
func joinPath(prefix, rest string) string {
	switch {
	case rest == "":
		return prefix
	case strings.HasPrefix(rest, "[]"):
		return prefix + rest
	default:
		return prefix + "." + rest
	}
}

// withPath prefixes the path of a schema error with one element.
func withPath(err error, prefix string) error {
	var c *SchemaConflictError
	if errors.As(err, &c) {
		c.Field = joinPath(prefix, c.Field)
		return err
	}
	var d *DuplicateFieldError
	if errors.As(err, &d) {
		d.Field = joinPath(prefix, d.Field)
		d.Other = joinPath(prefix, d.Other)
	}
	return err
}

// withRow records the batch index of the row in a schema error.
func withRow(err error, row int) error {
	var c *SchemaConflictError
	if errors.As(err, &c) {
		c.Row = row
		return err
	}
	var d *DuplicateFieldError
	if errors.As(err, &d) {
		d.Row = row
		return err
	}
	return fmt.Errorf("row %d: %w", row, err)
}

// errInternal marks a value the evolved schema should have accepted.
var errInternal = errors.New("value does not match the evolved schema")
