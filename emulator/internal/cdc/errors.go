package cdc

import "fmt"

// Error codes of the failures a user can fix; a source's node shows them
// as its error's errorCode.
const (
	// CodeAuthenticationFailed: the server refused the connection's user
	// name or password.
	CodeAuthenticationFailed = "CDCAuthenticationFailed"
	// CodeDatabaseNotFound: the connection's database does not exist.
	CodeDatabaseNotFound = "CDCDatabaseNotFound"
	// CodeTableNotFound: a table the source names does not exist.
	CodeTableNotFound = "CDCTableNotFound"
	// CodeLogicalReplicationDisabled: the PostgreSQL server's wal_level is
	// not logical.
	CodeLogicalReplicationDisabled = "CDCLogicalReplicationDisabled"
	// CodeBinlogDisabled: the MySQL server writes no binary log, or not
	// row-based (binlog_format is not ROW).
	CodeBinlogDisabled = "CDCBinlogDisabled"
	// CodeSlotNotFound: the replication slot the saved position belongs to
	// no longer exists.
	CodeSlotNotFound = "CDCReplicationSlotNotFound"
	// CodePositionNotFound: the saved binlog file or GTID set is no longer
	// on the server (purged).
	CodePositionNotFound = "CDCBinlogPositionNotFound"
	// CodeServerUnreachable: nothing answers at the connection's host and port.
	CodeServerUnreachable = "CDCServerUnreachable"
	// CodePermissionDenied: the user lacks a privilege the source needs
	// (REPLICATION on PostgreSQL; REPLICATION SLAVE / CLIENT on MySQL).
	CodePermissionDenied = "CDCPermissionDenied"
)

// Error is a failure with a stable code.
type Error struct {
	// ErrorCode is the failure's code, one of the Code constants.
	ErrorCode string
	Err       error
}

func (e *Error) Error() string { return e.ErrorCode + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// fail makes an Error with code and a formatted cause.
func fail(code, format string, args ...any) *Error {
	return &Error{ErrorCode: code, Err: fmt.Errorf(format, args...)}
}
