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

// ConversionError reports a row that schema enforcement (SchemaEnforce)
// cannot project onto the table's schema: a value its column cannot take
// without loss (Field, ColumnType and Value set), or a row with no field in
// common with the table's columns (Field and ColumnType empty), which
// Fabric calls a schema conversion failure.
type ConversionError struct {
	// Row is the index of the row in the batch.
	Row int
	// Field is the value's path, as SchemaConflictError.Field; "" for a
	// row with no field in common with the table.
	Field string
	// ColumnType is the column's Delta type ("long"); "" with Field.
	ColumnType string
	// Value is the value's compact JSON text, cut to 100 characters (for
	// a row with no field in common, the row's).
	Value string
}

// Error names the row, the field, the column's type and the value.
func (e *ConversionError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("row %d of the batch has no field in common with the table's columns: %s", e.Row, e.Value)
	}
	return fmt.Sprintf("field %q of row %d of the batch holds %s, which its %s column (%s) cannot take without loss",
		e.Field, e.Row, e.Value, e.ColumnType, asaTypeName(e.ColumnType))
}

// asaTypeName is the Azure Stream Analytics name of a Delta type, the
// names Eventstream shows.
func asaTypeName(deltaType string) string {
	switch {
	case deltaType == TypeString:
		return "Nvarchar(max)"
	case deltaType == TypeLong:
		return "BigInt"
	case deltaType == TypeDouble:
		return "Float"
	case deltaType == TypeBoolean:
		return "Bit"
	case deltaType == TypeTimestamp:
		return "DateTime"
	case strings.HasPrefix(deltaType, TypeStruct):
		return "Record"
	case strings.HasPrefix(deltaType, TypeArray):
		return "Array"
	default:
		return deltaType
	}
}

// RowsError lists every row of a batch that SchemaEnforce cannot write, in
// row order: each a *ConversionError, *RowLimitError or
// *DuplicateFieldError. Append returns it before writing anything; the
// caller writes the batch again without those rows.
type RowsError struct {
	Errs []error
}

// Error names the first row's error and how many there are.
func (e *RowsError) Error() string {
	if len(e.Errs) == 1 {
		return e.Errs[0].Error()
	}
	return fmt.Sprintf("%d rows cannot be written; the first: %v", len(e.Errs), e.Errs[0])
}

// Unwrap returns the rows' errors.
func (e *RowsError) Unwrap() []error { return e.Errs }

// RowOf returns the batch index of the row a row error names: that of a
// *ConversionError, *SchemaConflictError, *DuplicateFieldError or
// *RowLimitError (for a *RowsError, its first row's).
func RowOf(err error) (int, bool) {
	var (
		conv  *ConversionError
		confl *SchemaConflictError
		dup   *DuplicateFieldError
		limit *RowLimitError
	)
	switch {
	case errors.As(err, &conv):
		return conv.Row, true
	case errors.As(err, &confl):
		return confl.Row, true
	case errors.As(err, &dup):
		return dup.Row, true
	case errors.As(err, &limit):
		return limit.Row, true
	}
	return 0, false
}

// setRow records the batch index of the row in a row error.
func setRow(err error, row int) error {
	var conv *ConversionError
	var limit *RowLimitError
	switch {
	case errors.As(err, &conv):
		conv.Row = row
	case errors.As(err, &limit):
		limit.Row = row
	default:
		return withRow(err, row)
	}
	return err
}
